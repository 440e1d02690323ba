"""`report`: write report.json, MIGRATION_REPORT.md, migration.diff (and `--output DIR`)."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.report import build_report, render_markdown
from agent.state import FixState
from agent.workspace import Workspace


def report(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Settle the verdict and write every report file of the run folder."""
    ctx = runtime.context
    update: dict[str, Any] = {}
    if "verdict" not in state:
        update["verdict"] = "no-parity"
        update.setdefault(
            "stop_reason", state.get("stop_reason") or "the loop ended without parity"
        )
    final = {**state, **update}
    workspace = Workspace(ctx.folder.workspace)
    workspace.reset(state["workspace_commit"])
    data = build_report(ctx, final, state.get("seconds_spent", 0.0))  # type: ignore[arg-type]
    ctx.folder.write_json(ctx.folder.report_json, data)
    ctx.folder.report_md.write_text(render_markdown(data), encoding="utf-8")
    ctx.folder.diff.write_text(workspace.diff(), encoding="utf-8")
    if ctx.request.output is not None:
        workspace.copy_tree_to(ctx.request.output)  # the CLI refused a non-empty folder
    ctx.progress("report", f"verdict: {data['verdict']}")
    return update
