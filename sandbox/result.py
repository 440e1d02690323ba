"""Assemble a `RunResult` the same way for every backend."""

from sandbox.output import CappedOutput
from sandbox.types import RunResult, RunSpec
from sandbox.workspace import Results


def end_message(spec: RunSpec, *, timed_out: bool, oom_killed: bool) -> str:
    """The sandbox's one-line account of an abnormal end ("" for a normal one)."""
    if timed_out:
        return (
            f"killed after the {spec.timeout_s:g} s timeout; raise it with --timeout or "
            "sandbox.timeout_s if the program needs longer"
        )
    if oom_killed:
        return (
            f"out of memory: the program needed more than the sandbox's {spec.memory_mb} MB; "
            "raise it with --memory or sandbox.memory_mb, or make the program use less"
        )
    return ""


def build_result(
    spec: RunSpec,
    *,
    backend: str,
    exit_code: int,
    stdout: CappedOutput,
    stderr: CappedOutput,
    duration_s: float,
    timed_out: bool,
    oom_killed: bool,
    results: Results,
) -> RunResult:
    """The result of one run; problems reading result files are added to the message."""
    notes = [end_message(spec, timed_out=timed_out, oom_killed=oom_killed), *results.problems]
    return RunResult(
        exit_code=exit_code,
        stdout=stdout.text(),
        stderr=stderr.text(),
        duration_s=round(duration_s, 3),
        timed_out=timed_out,
        oom_killed=oom_killed and not timed_out,
        probes=results.probes,
        runtime_metrics=results.runtime_metrics,
        artifacts_dir=results.artifacts_dir,
        backend=backend,
        stdout_truncated=stdout.truncated,
        stderr_truncated=stderr.truncated,
        message="; ".join(note for note in notes if note),
    )
