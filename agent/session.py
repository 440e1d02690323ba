"""One LLM session: the model calls tools until it finishes, runs out of turns or of budget."""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.llm import Model, ModelReply
from agent.log import get_logger
from agent.toolbox import Toolbox, call_tool, tool_schemas

log = get_logger(__name__)

NUDGE = "Use the tools: apply_edit to change the code, run to check it, finish when done."


@dataclass
class SessionOutcome:
    """How a session ended and what it cost."""

    stop_reason: str
    """`finish`, `no-tool-calls`, `max-turns` or `budget`."""
    summary: str | None
    edited: list[str]
    turns: int
    calls: list[dict[str, Any]] = field(default_factory=list)


def run_session(
    model: Model,
    toolbox: Toolbox,
    *,
    system: str,
    task: str,
    node: str,
    max_turns: int,
    tokens_left: Callable[[], float],
) -> SessionOutcome:
    """Drive `model` over `toolbox` for one task; every call's usage is in the outcome."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task},
    ]
    schemas = tool_schemas(toolbox)
    calls: list[dict[str, Any]] = []
    nudged = False
    for turn in range(1, max_turns + 1):
        if tokens_left() <= 0:
            return SessionOutcome("budget", None, toolbox.edited, turn - 1, calls)
        started = time.monotonic()
        reply = model.complete(messages, schemas)
        calls.append(_usage_record(node, model.name, reply, time.monotonic() - started))
        messages.append(reply.as_message())
        if not reply.tool_calls:
            if nudged:
                return SessionOutcome("no-tool-calls", reply.content, toolbox.edited, turn, calls)
            nudged = True
            messages.append({"role": "user", "content": NUDGE})
            continue
        for call in reply.tool_calls:
            observation = call_tool(toolbox, call)
            log.debug("tool %s -> %s", call.name, observation[:120])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": observation})
        if toolbox.finished is not None:
            return SessionOutcome("finish", toolbox.finished, toolbox.edited, turn, calls)
    return SessionOutcome("max-turns", None, toolbox.edited, max_turns, calls)


def _usage_record(node: str, model: str, reply: ModelReply, seconds: float) -> dict[str, Any]:
    return {
        "node": node,
        "model": model,
        "prompt_tokens": reply.usage.prompt_tokens,
        "completion_tokens": reply.usage.completion_tokens,
        "cost_usd": reply.usage.cost_usd,
        "retries": reply.retries,
        "seconds": round(seconds, 3),
        "tool_calls": [call.name for call in reply.tool_calls],
    }
