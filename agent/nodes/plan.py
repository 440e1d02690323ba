"""`plan`: rules first; judgement findings go to the model or become manual work."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.planning import make_plan, plan_markdown
from agent.state import FixState


def plan(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Build the plan, write it to the run folder and show it."""
    ctx = runtime.context
    steps, manual = make_plan(state.get("findings", []), has_model=ctx.model is not None)
    ctx.folder.write_json(ctx.folder.plan, {"steps": steps, "manual": manual})
    text = plan_markdown(steps, manual)
    (ctx.folder.path / "plan.md").write_text(text, encoding="utf-8")
    ctx.progress("plan", f"{len(steps)} step(s), {len(manual)} manual item(s)")
    return {"plan": steps, "manual": manual}
