"""`check`: parity of the last run against the reference."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.evaluation import check_last_run
from agent.state import FixState


def check(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Compare the last run's probes with the reference; a crashed run fails before comparing."""
    ctx = runtime.context
    report = check_last_run(ctx, state)
    ctx.progress("check", f"parity: {report['verdict']}")
    update: dict[str, Any] = {"parity": report}
    if report["verdict"] == "pass":
        update["verdict"] = "parity"
        update["stop_reason"] = "parity reached"
    elif report["verdict"] == "marginal":
        # Within the band the parity spec accepts for lower precision (R <= r_marginal): the
        # migrated run's error is of the order of the original's own at that precision.
        marginal = [row["probe"] for row in report["rows"] if row["verdict"] == "marginal"]
        update["verdict"] = "parity"
        update["stop_reason"] = f"parity reached; marginal (R within 2x) on {', '.join(marginal)}"
    return update
