"""`run`: the migrated program on the target runtime, in the sandbox."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.evaluation import run_migrated, seconds_left, summarize_round
from agent.state import FixState


def run(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Run every command on the current workspace; the results stay in the run folder."""
    ctx = runtime.context
    label = f"iter{state.get('iteration', 0)}-target"
    program = run_migrated(ctx, label, seconds_left(ctx, state))
    summary = summarize_round(program, ctx.request.commands, label)
    ctx.progress("run", f"exit {summary['exit_code']} in {summary['seconds']:.1f}s")
    return {"runs": [*state.get("runs", []), summary]}
