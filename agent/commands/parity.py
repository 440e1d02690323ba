"""`agent parity`: compare a migrated program's outputs with the original's; `agent parity
record` writes golden reference probes (on a GPU machine, or from the CPU reference)."""

import json
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from agent.commands.common import existing_dir, state_of, stdout
from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from agent.settings import Settings, Target, load_settings
from tools.parity.model import Reference
from tools.parity.reference import collect_reference
from tools.parity.report import ParityReport
from tools.parity.runs import RunLimits, normalize_commands, run_candidate
from tools.parity.verdict import check_parity

RECORD = "record"
_AUTOCAST_PRECISION = {"bfloat16": "bf16", "float16": "fp16"}


class ReferenceKind(StrEnum):
    """Where the original's reference outputs come from."""

    CPU = "cpu"
    CUDA = "cuda"
    GOLDEN = "golden"


class Precision(StrEnum):
    """The migrated run's lower precision (auto: read from its autocast regions)."""

    AUTO = "auto"
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"


def parity(
    ctx: typer.Context,
    original: Annotated[Path, typer.Argument(help="The original (CUDA) repository.")],
    migrated: Annotated[
        Path | None,
        typer.Argument(help="The migrated repository (for `record`: the original)."),
    ] = None,
    target: Annotated[
        Target | None, typer.Option(help="What the migrated code runs on (not for record).")
    ] = None,
    run: Annotated[
        list[str] | None, typer.Option("--run", help="Command to run (repeatable).")
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write the report as JSON to this file.")
    ] = None,
    reference: Annotated[
        ReferenceKind | None, typer.Option(help="Reference outputs: cpu, cuda or golden.")
    ] = None,
    golden: Annotated[
        Path | None, typer.Option(help="Folder of golden probes (--reference golden).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="record: folder to write to.")] = None,
    precision: Annotated[
        Precision, typer.Option(help="Lower precision of the migrated run.")
    ] = Precision.AUTO,
    gpu: Annotated[
        str | None, typer.Option(help="GPU profile the original ran on (default A100).")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Reference cache (default ~/.cache/torchport/reference).")
    ] = None,
) -> int:
    """Compare a migrated program's outputs with the original's.

    ORIGINAL runs on the CUDA-on-CPU reference runtime (or a GPU, or golden probes) and MIGRATED
    on the target; probes (losses, saved tensors, printed numbers) are compared one by one, a
    table is printed, and the exit code is 0 only on parity (1 otherwise).

    `agent parity record ORIGINAL --run CMD --out DIR` writes golden probes of ORIGINAL instead.
    """
    env = state_of(ctx).env
    overrides = {
        "parity": {
            "reference": reference.value if reference else None,
            "golden_dir": str(golden) if golden else None,
            "gpu_profile": gpu,
        }
    }
    cache = cache_dir or _default_cache(env)
    if str(original) == RECORD:
        if migrated is None:
            raise BadInputError("record needs the original", hint="agent parity record ORIGINAL")
        return _record(existing_dir(migrated, "original"), run, out, precision, env, overrides)
    if migrated is None:
        raise BadInputError("give both repositories", hint="agent parity ORIGINAL MIGRATED")
    if target is None:
        raise BadInputError("--target is required", hint="--target tpu, neuron or agnostic")
    original_dir = existing_dir(original, "original")
    migrated_dir = existing_dir(migrated, "migrated")
    settings = load_settings(original_dir, env=env, overrides=overrides)
    report = compare(settings, original_dir, migrated_dir, target, run, precision, cache)
    stdout().print(report.table())
    for line in _summary(report):
        stdout().print(line, markup=False)
    if json_path is not None:
        json_path.write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    return int(ExitStatus.SUCCESS if report.passed else ExitStatus.NO_PARITY)


def compare(
    settings: Settings,
    original: Path,
    migrated: Path,
    target: Target,
    run: list[str] | None,
    precision: Precision,
    cache_dir: Path | None,
) -> ParityReport:
    """Run the migrated program, collect (or reuse) the reference, and judge."""
    from sandbox.factory import make_sandbox

    commands = normalize_commands(run or settings.run)
    sandbox = make_sandbox(settings.sandbox)
    limits = _limits(settings)
    candidate = run_candidate(
        migrated, commands, sandbox=sandbox, spec=settings.parity, target=target.value,
        chip=settings.chip, limits=limits,
    )  # fmt: skip
    low = _low_precision(precision, candidate.probes.autocast)
    reference = collect_reference(
        original, commands, sandbox=sandbox, spec=settings.parity, low_precision=low,
        cache_dir=cache_dir, limits=limits,
    )  # fmt: skip
    return check_parity(
        reference, candidate, settings.parity, migrated=migrated, target=target.value
    )


def _record(
    original: Path,
    run: list[str] | None,
    out: Path | None,
    precision: Precision,
    env: Mapping[str, str],
    overrides: dict[str, Any],
) -> int:
    from sandbox.factory import make_sandbox

    if out is None:
        raise BadInputError("record needs --out DIR", hint="the folder the golden probes go to")
    settings = load_settings(original, env=env, overrides=overrides)
    if settings.parity.reference == "golden":
        raise BadInputError("record runs the original", hint="use --reference cpu or cuda")
    low = None if precision in (Precision.AUTO, Precision.FP32) else precision.value
    reference = collect_reference(
        original, normalize_commands(run or settings.run), sandbox=make_sandbox(settings.sandbox),
        spec=settings.parity, low_precision=low, limits=_limits(settings),
    )  # fmt: skip
    reference.save(out)
    stdout().print(_recorded(reference, out), markup=False)
    return int(ExitStatus.SUCCESS)


def _recorded(reference: Reference, out: Path) -> str:
    return (
        f"golden probes written to {out}: {len(reference.base)} probes from the {reference.source} "
        f"reference ({len(reference.volatile)} volatile, {len(reference.ill_conditioned)} "
        "ill-conditioned); use them with --reference golden --golden " + str(out)
    )


def _summary(report: ParityReport) -> list[str]:
    lines = [f"verdict: {report.verdict}"]
    lines += [f"  fail [{failure.code}]: {failure.message}" for failure in report.failures]
    lines += [f"  excluded {item['probe']}: {item['reason']}" for item in report.excluded]
    lines += [f"  note: {note}" for note in report.notes]
    return lines


def _low_precision(precision: Precision, autocast: dict[str, int]) -> str | None:
    if precision is Precision.FP32:
        return None
    if precision is not Precision.AUTO:
        return precision.value
    dtypes = {_AUTOCAST_PRECISION.get(region.rpartition(":")[2]) for region in autocast}
    dtypes.discard(None)
    return sorted(d for d in dtypes if d)[0] if dtypes else None


def _limits(settings: Settings) -> RunLimits:
    box = settings.sandbox
    return RunLimits(
        timeout_s=box.timeout_s, memory_mb=box.memory_mb, cpus=box.cpus, pids=box.pids,
        output_cap_bytes=box.output_cap_bytes,
    )  # fmt: skip


def _default_cache(env: Mapping[str, str]) -> Path:
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else None
    home = Path(env.get("HOME") or "~").expanduser()
    return (base or home / ".cache") / "torchport" / "reference"
