"""The model's tools and a whole session driven by the scripted server over HTTP."""

from pathlib import Path

import pytest

from agent.llm import OpenAIModel, ToolCall
from agent.session import run_session
from agent.settings import LLMSettings
from agent.testing.openai_server import Reply, ScriptedOpenAIServer
from agent.toolbox import Toolbox, call_tool, tool_schemas


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text("import torch\n\nx = torch.ones(2).cuda()\nprint(x.sum())\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_train.py").write_text("def test_x():\n    assert True\n")
    return tmp_path


def make_toolbox(repo: Path) -> Toolbox:
    return Toolbox(repo, run=lambda: "exit code 0; parity: pass")


def call(name: str, **arguments: object) -> ToolCall:
    import json

    return ToolCall("c1", name, json.dumps(arguments), dict(arguments))


def test_schemas_come_from_signatures_and_docstrings(repo: Path) -> None:
    schemas = {s["function"]["name"]: s["function"] for s in tool_schemas(make_toolbox(repo))}
    assert set(schemas) == {"read_file", "search_code", "apply_edit", "run", "finish"}
    read = schemas["read_file"]["parameters"]
    assert read["required"] == ["path"]
    assert read["properties"]["start_line"]["type"] == "integer"
    assert "relative to the repository root" in read["properties"]["path"]["description"]
    assert schemas["apply_edit"]["parameters"]["required"] == ["path", "search", "replace"]


def test_read_and_search(repo: Path) -> None:
    toolbox = make_toolbox(repo)
    assert "    3 | x = torch.ones(2).cuda()" in call_tool(
        toolbox, call("read_file", path="train.py")
    )
    assert "train.py:3:" in call_tool(toolbox, call("search_code", pattern=r"\.cuda\("))
    assert "does not exist" in call_tool(toolbox, call("read_file", path="nope.py"))
    assert "Invalid regular expression" in call_tool(toolbox, call("search_code", pattern="("))


def test_protected_files_cannot_be_edited(repo: Path) -> None:
    toolbox = make_toolbox(repo)
    answer = call_tool(
        toolbox, call("apply_edit", path="tests/test_train.py", search="True", replace="False")
    )
    assert "protected" in answer
    assert "assert True" in (repo / "tests" / "test_train.py").read_text()


def test_bad_calls_become_observations(repo: Path) -> None:
    toolbox = make_toolbox(repo)
    assert "Unknown tool" in call_tool(toolbox, call("rm_rf"))
    assert "Bad arguments" in call_tool(toolbox, call("read_file", file="train.py"))
    broken = ToolCall("c2", "read_file", "{oops", None)
    assert "not valid JSON" in call_tool(toolbox, broken)


def test_session_edits_runs_and_finishes(repo: Path) -> None:
    script = [
        Reply(None, [("apply_edit", {"path": "train.py", "search": "x.cuda()", "replace": "x"})]),
        Reply(
            None,
            [
                (
                    "apply_edit",
                    {
                        "path": "train.py",
                        "search": "torch.ones(2).cuda()",
                        "replace": "torch.ones(2)",
                    },
                )
            ],
        ),
        Reply(None, [("run", {})]),
        Reply(None, [("finish", {"summary": "removed .cuda()"})]),
    ]
    with ScriptedOpenAIServer(script) as server:
        model = OpenAIModel(
            LLMSettings(model="m", base_url=server.base_url, api_key="k", retry_backoff_s=0.01)
        )
        outcome = run_session(
            model,
            make_toolbox(repo),
            system="sys",
            task="fix it",
            node="edit",
            max_turns=8,
            tokens_left=lambda: 1e9,
        )
        tool_messages = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert outcome.stop_reason == "finish"
    assert outcome.summary == "removed .cuda()"
    assert outcome.edited == ["train.py"]
    assert len(outcome.calls) == 4
    assert "Closest lines" in tool_messages[0]["content"]  # the first edit did not match
    assert "torch.ones(2)\n" in (repo / "train.py").read_text()


def test_session_stops_when_budget_is_spent(repo: Path) -> None:
    with ScriptedOpenAIServer([Reply(None, [("run", {})])] * 5) as server:
        model = OpenAIModel(LLMSettings(model="m", base_url=server.base_url, api_key="k"))
        spent = iter([10.0, 0.0])
        outcome = run_session(
            model,
            make_toolbox(repo),
            system="s",
            task="t",
            node="edit",
            max_turns=5,
            tokens_left=lambda: next(spent),
        )
    assert outcome.stop_reason == "budget"
    assert outcome.turns == 1
