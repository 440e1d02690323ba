"""`diagnose`: why the last iteration failed, and what to try next (or stop)."""

from typing import Any

from langgraph.runtime import Runtime

from agent.budget import exhausted, repeated_failure
from agent.context import FixContext
from agent.diagnosing import choose_action, diagnose_state
from agent.state import FixState


def diagnose(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Classify the failure; pick a codemod, a model request, or stop with a reason."""
    ctx = runtime.context
    diagnosis = diagnose_state(ctx, state)
    ctx.progress("diagnose", diagnosis.one_line())
    record = diagnosis.to_dict()
    update: dict[str, Any] = {
        "diagnoses": [*state.get("diagnoses", []), record],
        "failure_signatures": [*state.get("failure_signatures", []), diagnosis.signature()],
    }
    spent = exhausted(state, ctx.settings.budget)
    if spent:
        return {**update, "action": None, "verdict": "budget", "stop_reason": spent}
    if repeated_failure(state, diagnosis.signature()):
        reason = f"stuck: the same failure again after an edit ({diagnosis.one_line()})"
        return {**update, "action": None, "verdict": "no-parity", "stop_reason": reason}
    action = choose_action(ctx, state, diagnosis)
    record["action"] = action
    if action is None:
        verdict = "manual" if ctx.model is None else "no-parity"
        reason = f"nothing left to try for {diagnosis.one_line()}"
        if ctx.model is None:
            reason += " (rules only: configure a model for judgement fixes)"
        return {**update, "action": None, "verdict": verdict, "stop_reason": reason}
    return {**update, "action": action}
