"""`deliver`: the migration as a branch of the user's repository (and a pull request)."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.delivery import deliver as deliver_to_repo
from agent.state import FixState


def deliver(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Create `torchport/<target>` with one commit per change; record it in report.json."""
    ctx = runtime.context
    if not state.get("changes"):
        ctx.progress("deliver", "no changes to deliver")
        return {"delivery": {"skipped": "no changes"}}
    ctx.progress("deliver", "creating the branch")
    delivery = deliver_to_repo(ctx, state["changes"], state["base_commit"])
    report = ctx.folder.read_json(ctx.folder.report_json)
    report["delivery"] = delivery
    ctx.folder.write_json(ctx.folder.report_json, report)
    ctx.progress("deliver", f"branch {delivery['branch']}")
    return {"delivery": delivery}
