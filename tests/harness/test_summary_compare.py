"""Summaries, exit statuses and comparisons over results, and the report renderers on them."""

import json
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from evals.harness.compare import compare_runs
from evals.harness.plot import plot_eval
from evals.harness.report_md import render_markdown
from evals.harness.results import CaseResult, load_results, save_result
from evals.harness.summary import exit_status, pass_rate, summarize


def result(case: str, outcome: str, **fields: Any) -> CaseResult:
    verdict = {"pass": "parity", "fail": "no-parity"}.get(outcome)
    values: dict[str, Any] = {
        "case": case, "target": "tpu", "origin": "suite", "difficulty": "easy",
        "tags": ["device-string"], "needs_llm": False, "expected": "parity",
        "verdict": verdict, "matched": outcome == "pass", "outcome": outcome,
        "wall_s": 10.0, "tokens": 0, "iterations": 1,
    }  # fmt: skip
    values.update(fields)
    return CaseResult(**values)


def test_pass_rate_leaves_infrastructure_failures_out() -> None:
    results = [result("a", "pass"), result("b", "fail"), result("c", "infra"), result("d", "pass")]
    assert pass_rate(results) == {"cases": 4, "passed": 2, "infra": 1, "pass_rate": 0.6667}
    assert pass_rate([result("c", "infra")])["pass_rate"] is None


def test_summary_groups_by_target_difficulty_and_tag() -> None:
    results = [
        result("a", "pass", tags=["streams", "nvtx"], difficulty="hard"),
        result("a", "timeout", target="neuron", tags=["streams", "nvtx"], difficulty="hard"),
        result("b", "crash", tags=["nvtx"], overhead=3.0, wall_s=7.5),
    ]
    summary = summarize(results)
    assert summary["by_target"]["neuron"] == {"cases": 1, "passed": 0, "infra": 0, "pass_rate": 0}
    assert summary["by_difficulty"]["hard"]["pass_rate"] == 0.5
    assert summary["by_tag"]["nvtx"]["cases"] == 3
    assert summary["by_tag"]["streams"]["passed"] == 1
    assert (summary["timeouts"], summary["crashes"], summary["failed"]) == (1, 1, 0)
    assert summary["regressions"] == ["a/neuron", "b/tpu"]
    assert summary["totals"]["wall_s"] == 27.5
    assert summary["median_overhead"] == 3.0


@pytest.mark.parametrize(
    ("outcomes", "status"),
    [
        (["pass", "pass"], ExitStatus.SUCCESS),
        (["pass", "infra"], ExitStatus.INFRA_FAILURE),
        (["infra", "fail"], ExitStatus.NO_PARITY),
        (["timeout"], ExitStatus.NO_PARITY),
        (["crash", "infra"], ExitStatus.NO_PARITY),
    ],
)
def test_exit_status(outcomes: list[str], status: ExitStatus) -> None:
    assert exit_status([result(str(i), o) for i, o in enumerate(outcomes)]) == status


def write_run(folder: Path, results: list[CaseResult]) -> Path:
    for item in results:
        save_result(folder, item)
    return folder


def test_compare_finds_flips_and_deltas(tmp_path: Path) -> None:
    run_a = write_run(tmp_path / "a", [
        result("kept", "pass", wall_s=10.0, tokens=100),
        result("broke", "pass"),
        result("mended", "fail"),
        result("gone", "pass"),
    ])  # fmt: skip
    run_b = write_run(tmp_path / "b", [
        result("kept", "pass", wall_s=12.5, tokens=40),
        result("broke", "timeout", verdict=None),
        result("mended", "pass"),
        result("new", "pass"),
    ])  # fmt: skip
    comparison = compare_runs(run_a, run_b)
    changes = {row["case"]: row["change"] for row in comparison["rows"]}
    assert changes == {
        "broke/tpu": "regressed", "gone/tpu": "only in A", "kept/tpu": "same",
        "mended/tpu": "fixed", "new/tpu": "only in B",
    }  # fmt: skip
    kept = next(row for row in comparison["rows"] if row["case"] == "kept/tpu")
    assert (kept["wall_delta_s"], kept["tokens_delta"]) == (2.5, -60)
    assert (comparison["pass_rate_a"], comparison["pass_rate_b"]) == (0.6667, 0.6667)


def test_compare_cli_fails_on_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_a = write_run(tmp_path / "a", [result("x", "pass")])
    run_b = write_run(tmp_path / "b", [result("x", "fail")])
    out_json = tmp_path / "cmp.json"
    assert main(["eval", "--compare", str(run_a), str(run_b), "--json", str(out_json)]) == 1
    assert "| `x/tpu` | regressed | parity → no-parity | pass → fail |" in capsys.readouterr().out
    assert json.loads(out_json.read_text())["regressed"] == ["x/tpu"]
    assert main(["eval", "--compare", str(run_b), str(run_a)]) == ExitStatus.SUCCESS


def test_results_round_trip_and_a_corrupt_file_is_named(tmp_path: Path) -> None:
    save_result(tmp_path, result("a", "pass", ops_not_lowered=["aten::foo"]))
    assert load_results(tmp_path)[0].ops_not_lowered == ["aten::foo"]
    (tmp_path / "results" / "b.tpu.json").write_text("{")
    with pytest.raises(BadInputError, match=r"b\.tpu\.json: not a result of agent eval"):
        load_results(tmp_path)


def test_renderers_handle_missing_metrics(tmp_path: Path) -> None:
    results = [
        result("a", "pass", peak_device_bytes=3 * 1024 * 1024, ops_not_lowered=["a", "b", "c", "d"]),
        result("b", "infra", verdict=None, wall_s=None, tokens=None, iterations=None,
               detail="git clone failed"),
    ]  # fmt: skip
    report = {
        "run": {"suite": "s", "manifest": None, "cases": "*", "targets": ["tpu"], "llm": False,
                "model": None, "run_dir": str(tmp_path)},
        "cases": [r.model_dump(mode="json") for r in results],
        "summary": summarize(results),
    }  # fmt: skip
    text = render_markdown(report)
    assert "| `a` | tpu | parity | parity | ✅ pass |" in text
    assert "3.0 MiB" in text
    assert "`a`, `b`, `c` (+1)" in text
    assert "- `b` on tpu: **infra**, expected parity, got no verdict — git clone failed" in text
    path = plot_eval(results, report["summary"], tmp_path / "chart.png")
    assert path.read_bytes().startswith(b"\x89PNG")
