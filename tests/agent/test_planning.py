"""Rules-first planning and run-command discovery."""

from pathlib import Path

import pytest

from agent.discovery import discover_commands, resolve_commands
from agent.errors import BadInputError
from agent.planning import make_plan, plan_markdown
from tools.rules import all_rules


def finding(rule: str, path: str, line: int, *, fixable: bool) -> dict[str, object]:
    category = next(r.category.value for r in all_rules() if r.code == rule)
    return {
        "rule": rule,
        "category": category,
        "path": path,
        "line": line,
        "col": 1,
        "end_line": line,
        "end_col": 10,
        "message": "m",
        "effort": "none" if fixable else "high",
        "fixable": fixable,
        "targets": ["tpu"],
    }


def rules_of(category: str) -> list[str]:
    return [r.code for r in all_rules() if r.category.value == category]


def test_fixable_findings_become_one_codemod_step_per_family() -> None:
    device, amp = rules_of("device")[0], rules_of("amp")[0]
    findings = [
        finding(device, "a.py", 1, fixable=True),
        finding(device, "b.py", 2, fixable=True),
        finding(amp, "a.py", 3, fixable=True),
    ]
    steps, manual = make_plan(findings, has_model=False)
    assert [step["kind"] for step in steps] == ["codemod", "codemod"]
    assert {step["family"] for step in steps} == {"device", "amp"}
    device_step = next(step for step in steps if step["family"] == "device")
    assert device_step["paths"] == ["a.py", "b.py"]
    assert device_step["sites"] == 2
    assert [step["id"] for step in steps] == ["S1", "S2"]
    assert manual == []


def test_judgement_findings_go_to_the_model_or_to_manual_work() -> None:
    kernel = rules_of("kernels")[0]
    findings = [
        finding(kernel, "k.py", 5, fixable=False),
        finding(kernel, "k.py", 9, fixable=False),
    ]
    with_model, manual = make_plan(findings, has_model=True)
    assert [step["kind"] for step in with_model] == ["llm"]
    assert with_model[0]["paths"] == ["k.py"]
    assert manual == []
    rules_only, manual = make_plan(findings, has_model=False)
    assert rules_only == []
    assert [item["line"] for item in manual] == [5, 9]
    assert manual[0]["guidance"]
    assert "Manual work" in plan_markdown(rules_only, manual)


def test_cli_commands_win_then_settings_then_discovery(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    (tmp_path / "README.md").write_text("Run it:\n\n```\npython train.py --steps 3\n```\n")
    assert resolve_commands(["python a.py"], ["python b.py"], tmp_path) == ["python a.py"]
    assert resolve_commands([], ["python b.py"], tmp_path) == ["python b.py"]
    assert resolve_commands([], [], tmp_path) == ["python train.py --steps 3"]


def test_a_pytest_suite_is_preferred(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text("def test_x():\n    pass\n")
    assert discover_commands(tmp_path) == ["python -m pytest -q -x"]


def test_no_command_found_says_how_to_name_one(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("python missing.py\n")
    with pytest.raises(BadInputError) as info:
        resolve_commands([], [], tmp_path)
    assert "--run" in info.value.one_line()
