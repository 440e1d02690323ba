"""`plan`: rules first; judgement findings go to the model or become manual work."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.planning import make_plan, plan_markdown
from agent.state import FixState


def plan(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Build the plan, write it to the run folder and show it. A tree without findings has
    nothing to migrate: the run ends there, with no edit, no sandbox run and no branch."""
    ctx = runtime.context
    findings = state.get("findings", [])
    steps, manual = make_plan(findings, has_model=ctx.model is not None)
    ctx.folder.write_json(ctx.folder.plan, {"steps": steps, "manual": manual})
    text = plan_markdown(steps, manual)
    (ctx.folder.path / "plan.md").write_text(text, encoding="utf-8")
    ctx.progress("plan", f"{len(steps)} step(s), {len(manual)} manual item(s)")
    update: dict[str, Any] = {"plan": steps, "manual": manual}
    if not findings:
        update["verdict"] = "nothing-to-migrate"
        update["stop_reason"] = (
            f"the scanner found no CUDA lock-in for {state['target']}: nothing to migrate "
            f"(try it on the emulated device: agent run --target {state['target']} -- COMMAND)"
        )
    return update
