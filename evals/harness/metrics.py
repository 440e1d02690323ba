"""Judge one `agent fix` run and read its metrics from the run's report.json."""

import json
from pathlib import Path
from typing import Any

from agent.exit_status import ExitStatus
from agent.settings import Target, load_settings
from evals.harness.cases import EvalCase, Expectation
from evals.harness.child import ChildOutcome
from evals.harness.layout import RunLayout
from evals.harness.results import CaseResult, Outcome, now
from tools.scanner import scan_path

DETAIL_CHARS = 400
ERROR_PREFIX = "agent: error:"


def result_header(case: EvalCase, target: Target, expectation: Expectation) -> dict[str, Any]:
    """The fields of a result known before the run: what the case is and what it should reach."""
    return {
        "case": case.name,
        "target": str(target),
        "origin": case.origin,
        "difficulty": case.task.difficulty,
        "tags": list(case.task.tags),
        "needs_llm": case.task.needs_llm,
        "expected": expectation.verdict,
        "expected_why": expectation.why,
    }


def infra_result(header: dict[str, Any], detail: str) -> CaseResult:
    """A result for a pair that could not be run for reasons outside torchport."""
    return CaseResult(**header, outcome="infra", detail=detail[:DETAIL_CHARS], finished_at=now())


def judge_run(
    header: dict[str, Any], child: ChildOutcome, layout: RunLayout, *, limit_s: float
) -> CaseResult:
    """The result of one finished (or killed) `agent fix` process."""
    case, target = header["case"], header["target"]
    log_path = layout.fix_log(case, target)
    base = {
        **header,
        "exit_code": child.exit_code,
        "wall_s": child.seconds,
        "log": layout.relative(log_path),
        "finished_at": now(),
    }
    if child.timed_out:
        detail = f"killed after {child.seconds:.0f}s: the case's time limit is {limit_s:.0f}s"
        return CaseResult(**base, outcome="timeout", detail=detail)
    report_path = find_report(layout.runs(case, target))
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path else None
    if report is None or report.get("verdict") == "error":
        outcome: Outcome = "infra" if child.exit_code == ExitStatus.INFRA_FAILURE else "crash"
        detail = (report or {}).get("stop_reason") or last_error(log_path)
        extra = {}
        if report is not None and report_path is not None:
            extra = {
                "report": layout.relative(report_path),
                "run_id": report.get("run_id"),
                "verdict": report.get("verdict"),
            }
        return CaseResult(**base, **extra, outcome=outcome, detail=detail[:DETAIL_CHARS])
    assert report_path is not None
    matched = report["verdict"] == header["expected"]
    return CaseResult(
        **base,
        **report_metrics(report, report_path.parent / "workspace", Target(target), child.seconds),
        report=layout.relative(report_path),
        matched=matched,
        outcome="pass" if matched else "fail",
        detail=str(report.get("stop_reason", ""))[:DETAIL_CHARS],
    )


def find_report(runs: Path) -> Path | None:
    """The report.json of the newest run folder under `runs` (None when no run wrote one)."""
    reports = sorted(runs.glob("*/report.json")) if runs.is_dir() else []
    return reports[-1] if reports else None


def last_error(log_path: Path) -> str:
    """The `agent: error:` line of a log, else its last line (what a crash left to read)."""
    if not log_path.is_file():
        return "agent fix left no output"
    lines = [line.strip() for line in log_path.read_text(errors="replace").splitlines()]
    lines = [line for line in lines if line]
    errors = [line for line in lines if line.startswith(ERROR_PREFIX)]
    if errors:
        return errors[-1].removeprefix(ERROR_PREFIX).strip()
    return lines[-1] if lines else "agent fix left no output"


def report_metrics(
    report: dict[str, Any], workspace: Path, target: Target, wall_s: float
) -> dict[str, Any]:
    """The per-case metrics of a report.json (see CaseResult for each field)."""
    stats = report["statistics"]
    found = int(report["findings"]["total"])
    by_rules = min(
        found, sum(c.get("sites", 0) for c in report["changes"] if c["source"] == "rule")
    )
    left = findings_left(workspace, target)
    program_s = float(stats["reference_seconds"]) + float(stats["target_seconds"])
    return {
        "run_id": report["run_id"],
        "verdict": report["verdict"],
        "parity": (report.get("parity") or {}).get("verdict"),
        "iterations": stats["iterations"],
        "reference_s": stats["reference_seconds"],
        "target_s": stats["target_seconds"],
        "overhead": round(wall_s / program_s, 2) if program_s > 0 else None,
        "llm_calls": stats["llm_calls"],
        "tokens": stats["tokens"],
        "cost_usd": stats["cost_usd"],
        "findings_found": found,
        "fixed_by_rules": by_rules,
        "fixed_by_llm": None if left is None else max(0, found - by_rules - left),
        "findings_left": left,
        "lines_by_rules": stats["lines_changed_by_rules"],
        "lines_by_llm": stats["lines_changed_by_llm"],
        "ops_not_lowered": [str(op) for op in report.get("ops_not_lowered") or []],
        "peak_device_bytes": report.get("peak_device_bytes"),
    }


def findings_left(workspace: Path, target: Target) -> int | None:
    """How many findings the migrated tree still has (None when the run left no workspace)."""
    if not workspace.is_dir():
        return None
    ignore = load_settings(workspace, env={}).scan.ignore
    return len(scan_path(workspace, target=target, ignore=ignore).findings)
