"""Running and judging for the agent: the reference (cached), the migrated program's runs, parity.

Everything lands in the run folder: each round's logs under `logs/<label>/cmdN/`, and the round's
probe record (`program_run.pkl`, read back by the check node and by resumed runs).
"""

import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.context import FixContext
from agent.execution import output_tail, save_result, summarize
from agent.state import FixState
from sandbox.types import RunResult
from tools.parity.model import Reference
from tools.parity.reference import ReferenceUnavailableError, collect_reference
from tools.parity.runs import ProgramRun, RunLimits, run_candidate
from tools.parity.spec import ParitySpec
from tools.parity.verdict import check_parity

PROGRAM_RUN = "program_run.pkl"


def parity_spec(ctx: FixContext) -> ParitySpec:
    """The parity spec from the run's settings (`[tool.torchport.parity]` and friends)."""
    return ParitySpec.model_validate(ctx.settings.parity.model_dump(exclude_none=True))


def seconds_left(ctx: FixContext, state: FixState) -> float:
    """What remains of the time budget."""
    return max(1.0, ctx.settings.budget.timeout_s - state.get("seconds_spent", 0.0))


def _limits(ctx: FixContext, seconds: float) -> RunLimits:
    sandbox = ctx.settings.sandbox
    return RunLimits(
        timeout_s=max(1.0, min(sandbox.timeout_s, seconds)),
        memory_mb=sandbox.memory_mb,
        cpus=sandbox.cpus,
        pids=sandbox.pids,
        output_cap_bytes=sandbox.output_cap_bytes,
    )


AUTOCAST_RULES = frozenset({"TP030", "TP031"})


def low_precision(findings: list[dict[str, Any]]) -> str | None:
    """`bf16` when the original uses autocast (the migration runs it in bfloat16), else None."""
    return "bf16" if any(f["rule"] in AUTOCAST_RULES for f in findings) else None


def reference_for(ctx: FixContext, findings: list[dict[str, Any]], seconds: float) -> Reference:
    """The original's reference (computed once, then read from the cache)."""
    return collect_reference(
        ctx.folder.original,
        list(ctx.request.commands),
        sandbox=ctx.sandbox,
        spec=parity_spec(ctx),
        low_precision=low_precision(findings),
        cache_dir=ctx.folder.cache / "reference",
        limits=_limits(ctx, seconds),
    )


def reference_summary(ctx: FixContext, state: FixState) -> dict[str, Any]:
    """What the state records about the reference (or why there is none)."""
    started = time.monotonic()
    try:
        reference = reference_for(ctx, state.get("findings", []), seconds_left(ctx, state))
    except ReferenceUnavailableError as exc:
        return {"available": False, "reason": exc.message, "hint": exc.hint}
    return {
        "available": True,
        "source": reference.source,
        "probes": len(reference.base.probes),
        "volatile": sorted(reference.volatile),
        "ill_conditioned": sorted(reference.ill_conditioned),
        "low_precision": reference.low_precision,
        "notes": list(reference.notes),
        "seconds": round(time.monotonic() - started, 2),
    }


def run_migrated(ctx: FixContext, label: str, seconds: float) -> ProgramRun:
    """Run the workspace's program on the target with the probe recorder; keep logs and probes."""
    program = run_candidate(
        ctx.folder.workspace,
        list(ctx.request.commands),
        sandbox=ctx.sandbox,
        spec=parity_spec(ctx),
        target=str(ctx.request.target),
        chip=ctx.settings.chip,
        limits=_limits(ctx, seconds),
    )
    folder = ctx.folder.logs / label
    for index, (command, result) in enumerate(
        zip(ctx.request.commands, program.results, strict=False)
    ):
        (folder / f"cmd{index}").mkdir(parents=True, exist_ok=True)
        save_result(result, folder / f"cmd{index}", command)
    with (folder / PROGRAM_RUN).open("wb") as handle:
        pickle.dump(program, handle)
    return program


def load_program_run(ctx: FixContext, label: str) -> ProgramRun:
    """The probe record a run node saved."""
    with (ctx.folder.logs / label / PROGRAM_RUN).open("rb") as handle:
        program: ProgramRun = pickle.load(handle)  # written by this process, in our run folder
    return program


def judge(ctx: FixContext, findings: list[dict[str, Any]], program: ProgramRun) -> dict[str, Any]:
    """The parity report of one round, as a dict (the reference comes from the cache)."""
    report = check_parity(
        reference_for(ctx, findings, ctx.settings.sandbox.timeout_s),
        program,
        parity_spec(ctx),
        migrated=ctx.folder.workspace,
        target=str(ctx.request.target),
    )
    data = report.to_dict()
    data["markdown"] = report.to_markdown()
    return data


def check_last_run(ctx: FixContext, state: FixState) -> dict[str, Any]:
    """Parity of the last round (a crashed round fails with its exit codes)."""
    label = state["runs"][-1]["label"]
    return judge(ctx, state.get("findings", []), load_program_run(ctx, label))


@dataclass(frozen=True)
class RunOutput:
    """The failed command of a round, for the diagnosis."""

    command: str
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    oom_killed: bool
    tail: str
    metrics_line: str


def last_run_output(ctx: FixContext, state: FixState) -> RunOutput | None:
    """The first failed command of the last round, or None when every command succeeded."""
    label = state["runs"][-1]["label"]
    program = load_program_run(ctx, label)
    for command, result in zip(state["commands"], program.results, strict=False):
        if not result.ok:
            return _output(command, result)
    return None


def _output(command: str, result: RunResult) -> RunOutput:
    metrics = result.runtime_metrics or {}
    line = ""
    if metrics:
        line = (
            f"ops not lowered: {', '.join(metrics.get('ops_not_lowered', [])) or 'none'}; "
            f"float64 events: {len(metrics.get('float64_events', []))}; "
            f"peak device bytes: {(metrics.get('memory') or {}).get('peak_bytes')}"
        )
    return RunOutput(
        command,
        result.exit_code,
        result.stdout,
        result.stderr,
        result.timed_out,
        result.oom_killed,
        output_tail(result),
        line,
    )


def make_run_tool(
    ctx: FixContext, findings: list[dict[str, Any]], iteration: int
) -> Callable[[], str]:
    """The model's `run` tool: run the current workspace on the target and judge it."""
    calls = 0

    def run_tool() -> str:
        nonlocal calls
        calls += 1
        label = f"iter{iteration}-tool{calls}"
        program = run_migrated(ctx, label, ctx.settings.sandbox.timeout_s)
        failed = next((r for r in program.results if not r.ok), None)
        if failed is not None:
            return f"The run failed (exit code {failed.exit_code}).\n{output_tail(failed)}"
        report = judge(ctx, findings, program)
        return f"The run succeeded. Parity: {report['verdict']}.\n{report['markdown']}"

    return run_tool


def summarize_round(program: ProgramRun, commands: list[str], label: str) -> dict[str, Any]:
    """The state's record of one round."""
    return summarize(program.results, commands, label)
