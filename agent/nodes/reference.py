"""`reference`: the original program's outputs on the reference runtime (once; cached)."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.evaluation import reference_summary
from agent.state import FixState


def reference(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Run the original (or reuse the cached reference) and record what is known about it."""
    ctx = runtime.context
    ctx.progress("reference", "running the original on the reference runtime")
    summary = reference_summary(ctx, state)
    update: dict[str, Any] = {"reference": summary}
    if not summary["available"]:
        update["verdict"] = "manual"
        hint = f" ({summary['hint']})" if summary.get("hint") else ""
        update["stop_reason"] = f"{summary['reason']}{hint}"
    return update
