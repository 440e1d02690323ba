"""Budgets and the stuck detector: pure functions over the state and the settings."""

import functools
import hashlib
import time
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from agent.settings import BudgetSettings
from agent.state import FixState


def tokens_used(state: FixState) -> int:
    """Prompt plus completion tokens of every model call so far."""
    return sum(c["prompt_tokens"] + c["completion_tokens"] for c in state.get("llm_calls", []))


def cost_used(state: FixState) -> float:
    """USD spent on model calls so far."""
    return sum(call["cost_usd"] for call in state.get("llm_calls", []))


def exhausted(state: FixState, budget: BudgetSettings) -> str | None:
    """Which budget is spent (a sentence for the report), or None."""
    if state.get("iteration", 0) >= budget.max_iterations:
        return f"iteration budget spent ({budget.max_iterations} iterations)"
    if budget.max_tokens and tokens_used(state) >= budget.max_tokens:
        return f"token budget spent ({tokens_used(state)} of {budget.max_tokens} tokens)"
    if budget.max_cost_usd and cost_used(state) >= budget.max_cost_usd:
        return f"cost budget spent (${cost_used(state):.2f} of ${budget.max_cost_usd:.2f})"
    if state.get("seconds_spent", 0.0) >= budget.timeout_s:
        return (
            f"time budget spent ({state.get('seconds_spent', 0.0):.0f} of {budget.timeout_s:.0f} s)"
        )
    return None


def fingerprint(diff: str) -> str:
    """A short stable hash of an edit's diff, for "the same edit proposed again"."""
    return hashlib.sha256(diff.encode()).hexdigest()[:16]


def repeated_failure(state: FixState, signature: str) -> bool:
    """True when this failure was already seen after an earlier edit."""
    return signature in state.get("failure_signatures", [])


def timed(
    node: Callable[[FixState, Runtime[Any]], dict[str, Any]],
) -> Callable[..., dict[str, Any]]:
    """Wrap a node so that its wall time is added to `seconds_spent` (resume-safe time budget)."""

    @functools.wraps(node)
    def wrapper(state: FixState, runtime: Runtime[Any]) -> dict[str, Any]:
        started = time.monotonic()
        update = node(state, runtime)
        spent = state.get("seconds_spent", 0.0) + time.monotonic() - started
        return {**update, "seconds_spent": round(spent, 3)}

    return wrapper
