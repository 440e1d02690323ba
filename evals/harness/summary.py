"""The eval's summary: pass rates (overall, per target, difficulty and pattern tag), totals, and
the exit status. Pure functions over results."""

from collections.abc import Callable, Iterable, Sequence
from statistics import median
from typing import Any

from agent.exit_status import ExitStatus
from evals.harness.results import CaseResult

TOTALS = (
    "wall_s",
    "reference_s",
    "target_s",
    "llm_calls",
    "tokens",
    "cost_usd",
    "findings_found",
    "fixed_by_rules",
    "fixed_by_llm",
    "findings_left",
    "lines_by_rules",
    "lines_by_llm",
)
_OUTCOME_NAMES = {"fail": "failed", "timeout": "timeouts", "crash": "crashes"}


def pass_rate(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Cases, passed, infra failures, and passed / (cases - infra): infrastructure failures say
    nothing about torchport, so they are left out of the rate (None when nothing was judged)."""
    passed = sum(1 for r in results if r.outcome == "pass")
    infra = sum(1 for r in results if r.outcome == "infra")
    judged = len(results) - infra
    rate = round(passed / judged, 4) if judged else None
    return {"cases": len(results), "passed": passed, "infra": infra, "pass_rate": rate}


def grouped(
    results: Sequence[CaseResult], keys: Callable[[CaseResult], Iterable[str]]
) -> dict[str, dict[str, Any]]:
    """pass_rate of each group; a result may belong to several groups (its tags)."""
    groups: dict[str, list[CaseResult]] = {}
    for result in results:
        for key in keys(result):
            groups.setdefault(key, []).append(result)
    return {key: pass_rate(groups[key]) for key in sorted(groups)}


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The JSON report's `summary`."""
    outcomes = {name: sum(1 for r in results if r.outcome == name) for name in _OUTCOME_NAMES}
    overheads = [r.overhead for r in results if r.overhead is not None]
    return {
        **pass_rate(results),
        **{plural: outcomes[name] for name, plural in _OUTCOME_NAMES.items()},
        "regressions": [r.key for r in results if r.regression],
        "infra_failures": [r.key for r in results if r.outcome == "infra"],
        "by_target": grouped(results, lambda r: [r.target]),
        "by_difficulty": grouped(results, lambda r: [r.difficulty]),
        "by_tag": grouped(results, lambda r: r.tags),
        "totals": {name: _total(results, name) for name in TOTALS},
        "median_overhead": round(median(overheads), 2) if overheads else None,
    }


def _total(results: Sequence[CaseResult], name: str) -> float:
    values = [getattr(r, name) for r in results if getattr(r, name) is not None]
    return round(sum(values), 6 if name == "cost_usd" else 2)


def exit_status(results: Sequence[CaseResult]) -> ExitStatus:
    """0 when every case matched; NO_PARITY on any regression (wrong verdict, timeout, crash);
    INFRA_FAILURE when the only failures are the infrastructure's."""
    if any(r.regression for r in results):
        return ExitStatus.NO_PARITY
    if any(r.outcome == "infra" for r in results):
        return ExitStatus.INFRA_FAILURE
    return ExitStatus.SUCCESS
