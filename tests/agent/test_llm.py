"""The real openai client against the scripted server: replies, tool calls, retries, failures."""

import pytest

from agent.llm import LLMError, OpenAIModel
from agent.settings import LLMSettings
from agent.testing.openai_server import Delay, Fault, Malformed, Reply, ScriptedOpenAIServer

MESSAGES = [{"role": "user", "content": "hello"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "finish",
            "description": "Stop.",
            "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}},
        },
    }
]


def model_for(server: ScriptedOpenAIServer, **overrides: object) -> OpenAIModel:
    values: dict[str, object] = {
        "model": "scripted",
        "base_url": server.base_url,
        "api_key": "sk-test",
        "retry_backoff_s": 0.01,
        "timeout_s": 5.0,
        "input_cost_per_mtok": 1.0,
        "output_cost_per_mtok": 2.0,
    }
    values.update(overrides)
    return OpenAIModel(LLMSettings.model_validate(values))


def test_text_and_tool_calls_round_trip() -> None:
    script = [Reply("thinking", [("finish", {"summary": "done"})], completion_tokens=10)]
    with ScriptedOpenAIServer(script) as server:
        reply = model_for(server).complete(MESSAGES, TOOLS)
        request = server.requests[0]
    assert reply.content == "thinking"
    assert reply.tool_calls[0].name == "finish"
    assert reply.tool_calls[0].arguments == {"summary": "done"}
    assert reply.usage.completion_tokens == 10
    assert reply.usage.prompt_tokens > 0
    assert reply.usage.cost_usd == pytest.approx((reply.usage.prompt_tokens + 20) / 1e6)
    assert request["model"] == "scripted"
    assert request["tools"][0]["function"]["name"] == "finish"
    assert reply.as_message()["tool_calls"][0]["function"]["name"] == "finish"


def test_rate_limits_and_server_errors_are_retried() -> None:
    script = [Fault(429, retry_after=0.01), Fault(500), Malformed(), Reply("ok")]
    with ScriptedOpenAIServer(script) as server:
        reply = model_for(server).complete(MESSAGES, [])
        assert len(server.requests) == 4
    assert reply.content == "ok"
    assert reply.retries == 3


def test_timeouts_are_retried() -> None:
    script = [Delay(1.5, Reply("late")), Reply("on time")]
    with ScriptedOpenAIServer(script) as server:
        reply = model_for(server, timeout_s=0.5).complete(MESSAGES, [])
    assert reply.content == "on time"
    assert reply.retries == 1


def test_retries_are_bounded() -> None:
    with ScriptedOpenAIServer([Fault(503)] * 3) as server:
        with pytest.raises(LLMError, match="after 3 attempts"):
            model_for(server, max_retries=2).complete(MESSAGES, [])
        assert len(server.requests) == 3


def test_client_errors_are_not_retried() -> None:
    with ScriptedOpenAIServer([Fault(401, "bad key"), Reply("never")]) as server:
        with pytest.raises(LLMError, match="HTTP 401"):
            model_for(server).complete(MESSAGES, [])
        assert len(server.requests) == 1


def test_unparsable_tool_arguments_are_kept_raw() -> None:
    with ScriptedOpenAIServer([Reply(None, [("finish", "{not json")])]) as server:
        reply = model_for(server).complete(MESSAGES, TOOLS)
    assert reply.tool_calls[0].arguments is None
    assert reply.tool_calls[0].raw_arguments == "{not json"


def test_missing_model_is_a_clear_error() -> None:
    with pytest.raises(LLMError, match="no model configured"):
        OpenAIModel(LLMSettings())
