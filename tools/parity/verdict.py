"""`check_parity`: the verdict on a migrated run against the reference (pure: it only reads the
migrated tree to hash its protected files).

Every guard has its own failure code, so no single trick passes: a run that compares the
original with itself, stayed on the CPU, produced zeros or NaN, recorded nothing, exited
differently, autocast to the wrong dtype, edited a test or rewrote a probe file fails for that
reason even when its numbers match.
"""

from collections.abc import Sequence
from pathlib import Path

from sandbox.types import RunResult
from tools.parity.model import Reference
from tools.parity.protect import changed_protected, tree_hash
from tools.parity.report import Failure, ParityReport
from tools.parity.rows import DEVICE_TARGETS, probe_rows
from tools.parity.runs import ProgramRun, runtime_for
from tools.parity.spec import ParitySpec

_LOW_DTYPES = {"bf16": "bfloat16", "fp16": "float16"}
_ROW_FAILURES = {
    "nan_inf": "NaN/Inf where the reference has none",
    "degenerate": "degenerate outputs (all zeros or constant) where the reference varies",
}


def check_parity(
    reference: Reference,
    candidate: ProgramRun | Sequence[RunResult],
    spec: ParitySpec,
    *,
    migrated: Path,
    target: str,
) -> ParityReport:
    """Compare the migrated program's run(s) with the reference; see the module docstring.

    `candidate` is a `ProgramRun` (from `run_candidate`, probe digests checked) or the
    `RunResult`s of its commands, in order.
    """
    run = candidate
    if not isinstance(run, ProgramRun):
        run = ProgramRun.from_results(run, runtime=runtime_for(target))
    report = ParityReport("pass", target, reference.golden_dir or reference.source)
    report.low_precision = reference.low_precision
    report.notes.extend(reference.notes)
    report.failures += _program_guards(reference, run, spec, migrated, target)
    report.failures += _precision_guard(reference, run, target)
    rows = probe_rows(reference, run.probes, spec, target)
    report.rows, report.excluded = rows.rows, rows.excluded
    report.notes.extend(rows.notes)
    report.failures += _row_failures(report)
    extra = sorted(set(run.probes.probes) - set(reference.base.probes))
    if extra:
        report.notes.append(f"{len(extra)} probes only in the migrated run, ignored: {extra[:5]}")
    if report.failures:
        report.verdict = "fail"
    elif any(row.verdict == "marginal" for row in report.rows):
        report.verdict = "marginal"
    return report


def _program_guards(
    reference: Reference, run: ProgramRun, spec: ParitySpec, migrated: Path, target: str
) -> list[Failure]:
    failures = []
    if reference.tree and tree_hash(migrated) == reference.tree:
        failures.append(Failure("same_program", "the migrated tree is the original unchanged"))
    if "reference" in run.probes.runtimes or run.runtime == "reference":
        failures.append(Failure("same_program", "the migrated run used the CUDA reference runtime"))
    failures += [Failure("probe_integrity", problem) for problem in run.probes.problems]
    for change in changed_protected(reference.protected, migrated, spec.protected):
        failures.append(Failure("protected_changed", f"{change} since the reference"))
    if run.exit_codes != reference.exit_codes:
        failures.append(
            Failure(
                "exit_code", f"exit codes {run.exit_codes}, the original's {reference.exit_codes}"
            )
        )
    if not reference.base.probes:
        failures.append(
            Failure("no_probes", "the original recorded no probes (add print_patterns)")
        )
    elif not run.probes.probes:
        failures.append(Failure("no_probes", "the migrated run recorded no probes"))
    if target in DEVICE_TARGETS:
        failures += _device_guard(reference, run, spec, target)
    return failures


def _device_guard(
    reference: Reference, run: ProgramRun, spec: ParitySpec, target: str
) -> list[Failure]:
    if not any(run.metrics):
        message = f"the {target} runtime wrote no metrics: no evidence the program used the device"
        return [Failure("not_on_device", message)]
    calls, expected = run.device_calls, reference.device_calls
    if calls == 0 or calls < spec.min_device_share * expected:
        message = (
            f"did not run on the device: {calls} {target} ops where the original ran {expected} "
            f"CUDA ops (at least {spec.min_device_share:g}x as many expected)"
        )
        return [Failure("not_on_device", message)]
    return []


def _precision_guard(reference: Reference, run: ProgramRun, target: str) -> list[Failure]:
    dtypes = {region.rpartition(":")[2] for region in run.probes.autocast}
    failures = []
    if target in DEVICE_TARGETS and "float16" in dtypes:
        failures.append(
            Failure("precision", f"autocast to float16 on {target}, which computes in bfloat16")
        )
    expected = _LOW_DTYPES.get(reference.low_precision or "")
    if expected and dtypes and dtypes != {expected}:
        used = ", ".join(sorted(dtypes))
        failures.append(Failure("precision", f"autocast to {used} where {expected} was expected"))
    return failures


def _row_failures(report: ParityReport) -> list[Failure]:
    failures = []
    for code, what in _ROW_FAILURES.items():
        hit = [row.probe for row in report.rows if row.reason == code]
        if hit:
            failures.append(Failure(code, f"{what}: {', '.join(hit[:5])}"))
    mismatched = [
        row for row in report.rows if row.verdict == "fail" and row.reason not in _ROW_FAILURES
    ]
    if mismatched:
        shown = "; ".join(f"{row.probe} ({row.note or row.reason})" for row in mismatched[:3])
        failures.append(
            Failure(
                "probe_mismatch", f"{len(mismatched)} probes differ from the reference: {shown}"
            )
        )
    if not report.rows and not report.failures:
        failures.append(Failure("no_probes", "no probe can be compared (all were excluded)"))
    return failures
