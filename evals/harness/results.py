"""One evaluated (case, target): the result record, how it is judged, and where it is stored.

A result file `results/<case>.<target>.json` in the eval run folder marks the pair finished; a
resumed eval skips it (results with outcome `infra` are run again).
"""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.errors import BadInputError

Outcome = Literal["pass", "fail", "timeout", "crash", "infra"]
"""pass: the verdict is the expected one. fail: another verdict (a regression). timeout: the
harness killed the run at its time limit. crash: `agent fix` ended without a verdict (a bug in
torchport, or a task it refused). infra: the sandbox, Docker, the LLM endpoint, a clone or the
task's setup failed; not the migration's fault, and run again on resume."""
REGRESSIONS: frozenset[Outcome] = frozenset({"fail", "timeout", "crash"})
RESULTS_DIR = "results"


class CaseResult(BaseModel):
    """Everything measured about one case on one target (the JSON report's `cases` entries)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case: str
    target: str
    origin: Literal["suite", "external"]
    difficulty: str
    tags: list[str]
    needs_llm: bool
    expected: Literal["parity", "manual"]
    expected_why: str = ""
    """Why `manual` is expected: the task's reason, no LLM, or a missing reference module."""
    verdict: str | None = None
    """`agent fix`'s verdict (parity, no-parity, manual, budget, error); None without a report."""
    matched: bool = False
    outcome: Outcome
    detail: str = ""
    """The run's stop_reason, or what went wrong when there is no verdict."""
    exit_code: int | None = None
    run_id: str | None = None
    report: str | None = None
    """report.json of the run, relative to the eval run folder."""
    log: str | None = None
    """The `agent fix` output, relative to the eval run folder."""
    parity: str | None = None
    """The parity check's own verdict (pass, marginal, fail, ...) of the last round."""
    iterations: int | None = None
    wall_s: float | None = None
    """Wall time of the `agent fix` process, as the harness measured it."""
    reference_s: float | None = None
    target_s: float | None = None
    overhead: float | None = None
    """wall_s / (reference_s + target_s): the agent's time per second of program runs."""
    llm_calls: int | None = None
    tokens: int | None = None
    cost_usd: float | None = None
    findings_found: int | None = None
    fixed_by_rules: int | None = None
    fixed_by_llm: int | None = None
    findings_left: int | None = None
    """Findings still in the migrated tree (left for a person)."""
    lines_by_rules: int | None = None
    lines_by_llm: int | None = None
    ops_not_lowered: list[str] | None = None
    peak_device_bytes: int | None = None
    finished_at: str = ""

    @property
    def key(self) -> str:
        """`<case>/<target>`."""
        return f"{self.case}/{self.target}"

    @property
    def regression(self) -> bool:
        """The case did not reach its expected verdict for a reason that is torchport's."""
        return self.outcome in REGRESSIONS


def now() -> str:
    """The current time, ISO 8601 in UTC (for `finished_at`)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def result_path(run_dir: Path, case: str, target: str) -> Path:
    """Where the result of (case, target) is stored in an eval run folder."""
    return run_dir / RESULTS_DIR / f"{case}.{target}.json"


def save_result(run_dir: Path, result: CaseResult) -> Path:
    """Write the result file atomically (a reader never sees half of it)."""
    path = result_path(run_dir, result.case, result.target)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(result.model_dump_json(indent=1), encoding="utf-8")
    partial.replace(path)
    return path


def load_result(path: Path) -> CaseResult:
    """A stored result; BadInputError naming the file when it is not one."""
    try:
        return CaseResult.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise BadInputError(
            f"{path}: not a result of agent eval: {exc}",
            hint="delete the file to run the case again",
        ) from exc


def load_results(run_dir: Path) -> list[CaseResult]:
    """Every result stored in an eval run folder, by case and target."""
    folder = run_dir / RESULTS_DIR
    if not folder.is_dir():
        raise BadInputError(
            f"{run_dir} is not an eval run folder (no {RESULTS_DIR}/ in it)",
            hint="give the --run-dir of an earlier `agent eval`",
        )
    results = [load_result(path) for path in sorted(folder.glob("*.json"))]
    return sorted(results, key=lambda result: (result.case, result.target))
