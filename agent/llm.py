"""The LLM client: any OpenAI-compatible endpoint, with retries, backoff and token accounting.

`Model` is the seam: `OpenAIModel` talks to a real endpoint (OpenAI, vLLM, SGLang, Ollama, or the
scripted server in `agent.testing`). Transient failures (429, 5xx, timeouts, connection errors,
malformed responses) are retried with exponential backoff; anything else ends the call with an
`LLMError`, an infrastructure failure.
"""

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import openai

from agent.errors import InfraError
from agent.log import get_logger
from agent.settings import LLMSettings

log = get_logger(__name__)


class LLMError(InfraError):
    """The endpoint failed for good (after retries, or with a non-retryable error)."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model asked for. `arguments` is None when its JSON did not parse."""

    id: str
    name: str
    raw_arguments: str
    arguments: dict[str, Any] | None


@dataclass(frozen=True)
class Usage:
    """Tokens one call consumed, and what they cost under the configured prices."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class ModelReply:
    """What the model said: text and/or tool calls, with usage."""

    content: str | None
    tool_calls: list[ToolCall]
    usage: Usage
    finish_reason: str | None = None
    retries: int = 0

    def as_message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.raw_arguments},
                }
                for call in self.tool_calls
            ]
        return message


class Model(Protocol):
    """A chat model with tool calling."""

    name: str

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One chat completion."""
        ...


_RETRYABLE = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.APIResponseValidationError,
    json.JSONDecodeError,
)


class OpenAIModel:
    """`Model` over the `openai` SDK; the SDK's own retries are off so that ours are counted."""

    def __init__(
        self, settings: LLMSettings, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        if not settings.model:
            raise LLMError("no model configured", hint="set llm.model or OPENAI_MODEL")
        self.name = settings.model
        self._settings = settings
        self._sleep = sleep
        api_key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=settings.base_url or None,
            timeout=settings.timeout_s,
            max_retries=0,
        )

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One completion, retried on transient failures with exponential backoff."""
        attempts = self._settings.max_retries + 1
        for attempt in range(attempts):
            try:
                response = self._client.chat.completions.create(
                    model=self.name,
                    messages=messages,  # type: ignore[arg-type]
                    tools=tools or openai.omit,  # type: ignore[arg-type]
                    temperature=self._settings.temperature,
                )
                return self._reply(response, retries=attempt)
            except _RETRYABLE as exc:
                if attempt + 1 == attempts:
                    raise LLMError(
                        f"LLM endpoint failed after {attempts} attempts: {_describe(exc)}",
                        hint="check llm.base_url and that the server is up",
                    ) from exc
                delay = self._backoff(attempt, exc)
                log.warning(
                    "LLM call failed (%s); retry %d in %.1fs", _describe(exc), attempt + 1, delay
                )
                self._sleep(delay)
            except openai.APIStatusError as exc:
                raise LLMError(
                    f"LLM endpoint refused the request: {_describe(exc)}",
                    hint="check llm.model, llm.api_key (OPENAI_API_KEY) and llm.base_url",
                ) from exc
        raise AssertionError("unreachable")  # the loop returns or raises

    def _backoff(self, attempt: int, exc: Exception) -> float:
        retry_after = _retry_after(exc)
        if retry_after is not None:
            return min(retry_after, 60.0)
        base = self._settings.retry_backoff_s * (2**attempt)
        return base * (0.5 + random.random() / 2)  # jitter, not cryptography

    def _reply(self, response: Any, *, retries: int) -> ModelReply:
        if not getattr(response, "choices", None):
            raise LLMError("LLM endpoint returned no choices", hint="check the server's logs")
        choice = response.choices[0]
        message = choice.message
        calls = [_tool_call(call) for call in (message.tool_calls or [])]
        usage = response.usage
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = (
            prompt * self._settings.input_cost_per_mtok
            + completion * self._settings.output_cost_per_mtok
        ) / 1e6
        return ModelReply(
            content=message.content,
            tool_calls=calls,
            usage=Usage(prompt, completion, cost),
            finish_reason=choice.finish_reason,
            retries=retries,
        )


def _tool_call(call: Any) -> ToolCall:
    raw = call.function.arguments or "{}"
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        parsed = None
    arguments = parsed if isinstance(parsed, dict) else None
    return ToolCall(id=call.id, name=call.function.name, raw_arguments=raw, arguments=arguments)


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    header = response.headers.get("retry-after") if response is not None else None
    try:
        return float(header) if header else None
    except ValueError:
        return None


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"HTTP {status}: {text}" if status else f"{type(exc).__name__}: {text}"
