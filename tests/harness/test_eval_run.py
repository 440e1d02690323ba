"""A real eval of the tiny suite (see conftest): interrupt, resume, timeout, every outcome, the
metrics read from the real reports, and the three outputs."""

import json
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from evals.harness import load_results
from evals.harness.results import CaseResult
from tests.harness.conftest import Scenario
from tests.processes import processes_with

pytestmark = pytest.mark.slow


def results_of(run_dir: Path) -> dict[str, CaseResult]:
    return {result.case: result for result in load_results(run_dir)}


def test_interrupt_stops_the_eval_and_every_process_it_started(scenario: Scenario) -> None:
    assert scenario.interrupt_code == ExitStatus.INTERRUPTED
    assert len(scenario.hung_pids) >= 3, "the agent and the sandboxed program were running"
    assert scenario.left_after_interrupt == []
    assert sorted(results_of(scenario.after_interrupt)) == ["a_train"]


def test_resume_skips_the_finished_case(scenario: Scenario) -> None:
    before = results_of(scenario.after_interrupt)["a_train"]
    after = results_of(scenario.run_dir)["a_train"]
    assert after == before
    assert len(list((scenario.run_dir / "cases/a_train/tpu/runs").iterdir())) == 1
    assert "a_train/tpu: pass, finished earlier in this run folder: skipped" in " ".join(
        scenario.resume_output.split()
    )


def test_a_hanging_case_is_killed_at_its_limit_and_the_others_continue(
    scenario: Scenario,
) -> None:
    results = results_of(scenario.run_dir)
    hang = results["b_hang"]
    assert hang.outcome == "timeout"
    assert hang.verdict is None
    assert hang.wall_s is not None
    assert scenario.limit_s <= hang.wall_s < scenario.limit_s + 30
    assert f"time limit is {scenario.limit_s}s" in hang.detail
    assert processes_with(scenario.token) == []
    assert results["c_wrong"].verdict is not None
    assert results["d_broken"].outcome == "crash"


def test_outcomes_and_exit_status(scenario: Scenario) -> None:
    results = results_of(scenario.run_dir)
    assert {name: r.outcome for name, r in results.items()} == {
        "a_train": "pass",
        "b_hang": "timeout",
        "c_wrong": "fail",
        "d_broken": "crash",
    }
    assert results["c_wrong"].expected == "manual"
    assert results["c_wrong"].verdict == "parity"
    assert results["d_broken"].exit_code == ExitStatus.BAD_INPUT
    assert "does not parse" in results["d_broken"].detail
    assert scenario.resume_code == ExitStatus.NO_PARITY


@pytest.mark.parametrize("case", ["a_train", "c_wrong"])
def test_metrics_are_those_of_the_runs_report(scenario: Scenario, case: str) -> None:
    result = results_of(scenario.run_dir)[case]
    assert result.report is not None
    report = json.loads((scenario.run_dir / result.report).read_text())
    stats = report["statistics"]
    rule_changes = [c for c in report["changes"] if c["source"] == "rule"]
    assert result.run_id == report["run_id"]
    assert result.verdict == report["verdict"] == "parity"
    assert result.detail == report["stop_reason"]
    assert result.parity == report["parity"]["verdict"]
    assert result.iterations == stats["iterations"] >= 1
    assert (result.reference_s, result.target_s) == (
        stats["reference_seconds"],
        stats["target_seconds"],
    )
    assert result.wall_s is not None
    assert result.wall_s > stats["target_seconds"]
    assert result.overhead == round(result.wall_s / (result.reference_s + result.target_s), 2)
    assert (result.llm_calls, result.tokens, result.lines_by_llm) == (0, 0, 0)
    assert result.findings_found == report["findings"]["total"] > 0
    assert result.fixed_by_rules == sum(c["sites"] for c in rule_changes)
    assert (result.fixed_by_llm, result.findings_left) == (0, 0), "rules fix every finding"
    assert result.lines_by_rules == sum(c["lines_added"] + c["lines_removed"] for c in rule_changes)
    assert result.peak_device_bytes == report["peak_device_bytes"] > 0
    assert result.ops_not_lowered == report["ops_not_lowered"]


def test_json_report(scenario: Scenario) -> None:
    report = json.loads((scenario.run_dir / "eval.json").read_text())
    assert (scenario.outputs / "eval.json").read_text() == (
        scenario.run_dir / "eval.json"
    ).read_text()
    assert [(c["case"], c["target"]) for c in report["cases"]] == [
        ("a_train", "tpu"), ("b_hang", "tpu"), ("c_wrong", "tpu"), ("d_broken", "tpu"),
    ]  # fmt: skip
    for entry in report["cases"]:
        assert {"case", "target", "expected", "verdict", "outcome", "wall_s"} <= entry.keys()
    summary = report["summary"]
    assert (summary["cases"], summary["passed"], summary["pass_rate"]) == (4, 1, 0.25)
    assert summary["regressions"] == ["b_hang/tpu", "c_wrong/tpu", "d_broken/tpu"]
    assert summary["by_target"]["tpu"]["passed"] == 1
    assert summary["by_tag"]["backend-flags"] == {
        "cases": 2, "passed": 1, "infra": 0, "pass_rate": 0.5,
    }  # fmt: skip
    assert report["run"]["llm"] is False
    assert report["run"]["targets"] == ["tpu"]


def test_markdown_report(scenario: Scenario) -> None:
    text = (scenario.outputs / "eval.md").read_text()
    assert "**1 of 4 case(s) reached their expected verdict** (25% of the 4 judged)" in text
    assert "| target `tpu` | 4 | 1 | 0 | 25% |" in text
    results = results_of(scenario.run_dir)
    for name, result in results.items():
        assert f"| `{name}` | tpu | {result.expected} | {result.verdict or '—'} |" in text
    misses = text.split("## Not as expected")[1]
    assert "`a_train`" not in misses
    assert results["c_wrong"].detail in misses
    assert "**timeout**" in misses
    assert "**crash**" in misses


def test_png_chart(scenario: Scenario) -> None:
    from matplotlib.image import imread

    data = (scenario.outputs / "eval.png").read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = imread(scenario.outputs / "eval.png")
    assert image.shape[0] > 300
    assert image.shape[1] > 1000


def test_compare_between_the_interrupted_and_the_resumed_run(
    scenario: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["eval", "--compare", str(scenario.after_interrupt), str(scenario.run_dir)])
    out = capsys.readouterr().out
    assert code == ExitStatus.SUCCESS
    assert "| `b_hang/tpu` | only in B | — → — | — → timeout |" in out
    assert "| `a_train/tpu` | same | parity → parity | pass → pass | +0 | +0 | +0 |" in out


def test_resume_with_other_settings_is_refused(
    scenario: Scenario, eval_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["eval", "--suite", str(scenario.suite), "--targets", "tpu", "--run-dir",
         str(scenario.run_dir), "--sandbox", "docker", "--no-llm"],
        env=eval_env,
    )  # fmt: skip
    assert code == ExitStatus.BAD_INPUT
    assert "holds an eval run with other settings (sandbox: None then, 'docker' now)" in (
        capsys.readouterr().err.replace("\n", " ")
    )
