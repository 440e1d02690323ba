"""`agent run`: run a command from a repository inside the sandbox."""

import dataclasses
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from agent.commands.common import existing_dir, print_json, state_of, stdout
from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from agent.settings import Settings, load_settings
from sandbox.types import RunResult, Sandbox

TAIL_LINES = 20
RUN_OPTIONS = frozenset(
    {"--target", "--chip", "--sandbox", "--timeout", "--memory", "--artifacts", "--json"}
)


class Runtime(StrEnum):
    """What the sandboxed Python runs on."""

    TPU = "tpu"
    NEURON = "neuron"
    CPU = "cpu"
    REFERENCE = "reference"


class SandboxChoice(StrEnum):
    """Which sandbox runs the command."""

    AUTO = "auto"
    DOCKER = "docker"
    LOCAL = "local"


def run_in_sandbox(
    settings: Settings,
    repo: Path,
    command: list[str],
    *,
    runtime: Runtime,
    sandbox: Sandbox | None = None,
    artifacts_dir: Path | None = None,
) -> RunResult:
    """Run `command` on a copy of `repo` in `sandbox` (default: the one `settings` choose)."""
    from sandbox.factory import make_sandbox, run_spec

    chosen = sandbox or make_sandbox(settings.sandbox)
    spec = run_spec(
        settings.sandbox,
        command,
        repo,
        runtime=runtime.value,
        chip=settings.chip,
        artifacts_dir=artifacts_dir,
    )
    return chosen.run(spec)


def run(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Repository whose copy the command runs in.")],
    command: Annotated[list[str], typer.Argument(help="The command, after `--`.")],
    target: Annotated[Runtime, typer.Option(help="Runtime inside the sandbox.")] = Runtime.CPU,
    chip: Annotated[str | None, typer.Option(help="Chip profile (v5e, trn2, ...).")] = None,
    sandbox: Annotated[
        SandboxChoice | None, typer.Option(help="Sandbox backend (default: sandbox.type, auto).")
    ] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds before the run is killed.")] = None,
    memory: Annotated[int | None, typer.Option(help="Memory limit in MB.")] = None,
    artifacts: Annotated[
        Path | None, typer.Option(help="Folder for the runtime's result files.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the RunResult as JSON.")] = False,
) -> int:
    """Run a command on a copy of a repository inside the sandbox.

    The sandbox has no network, bounded memory/CPU/processes/time and no host secrets; the command
    runs on the emulated tpu/neuron device, plain CPU, or the CUDA-on-CPU reference runtime.
    Exits 0 when the command succeeded, 1 when it failed, timed out or ran out of memory.
    """
    repo = existing_dir(path)
    command = _command_after_separator(command)
    overrides: dict[str, Any] = {
        "chip": chip,
        "sandbox": {
            "type": sandbox.value if sandbox else None,
            "timeout_s": timeout,
            "memory_mb": memory,
        },
    }
    settings = load_settings(repo, env=state_of(ctx).env, overrides=overrides)
    result = run_in_sandbox(settings, repo, command, runtime=target, artifacts_dir=artifacts)
    if as_json:
        print_json(dataclasses.asdict(result))
    else:
        show_result(result, target=target.value)
    return int(ExitStatus.SUCCESS if result.ok else ExitStatus.NO_PARITY)


def _command_after_separator(words: list[str]) -> list[str]:
    """The command without a leading `--`; BAD_INPUT when `run`'s own options follow PATH
    (they would otherwise be taken as the command)."""
    if words and words[0] == "--":
        words = words[1:]
    if "--" in words and words[0].split("=", 1)[0] in RUN_OPTIONS:
        raise BadInputError(
            f"option {words[0]} after PATH would be read as part of the command",
            hint="put the options before PATH: agent run --target tpu PATH -- CMD",
        )
    if not words:
        raise BadInputError("no command given", hint="agent run [OPTIONS] PATH -- CMD...")
    return words


def show_result(result: RunResult, *, target: str) -> None:
    """Exit code, duration, the tail of each stream, runtime metrics and where artifacts are."""
    console = stdout()
    verdict = "ok" if result.ok else "FAILED"
    console.print(
        f"{verdict}: exit {result.exit_code} in {result.duration_s:.2f} s "
        f"({result.backend} sandbox, target {target})"
    )
    if result.message:
        console.print(f"sandbox: {result.message}")
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        lines = text.rstrip("\n").splitlines()
        if lines:
            shown = lines[-TAIL_LINES:]
            console.print(f"── {name} (last {len(shown)} of {len(lines)} lines) ──", markup=False)
            console.print("\n".join(shown), markup=False)
    if result.runtime_metrics:
        console.print(_metrics_line(result.runtime_metrics), markup=False)
    if result.artifacts_dir:
        console.print(f"artifacts: {result.artifacts_dir}")


def _metrics_line(metrics: dict[str, Any]) -> str:
    native = metrics.get("native_calls", 0)
    fallback = metrics.get("fallback_calls", 0)
    share = metrics.get("native_share", 0.0)
    line = f"runtime: {native} native op calls, {fallback} fallback ({share:.0%} native)"
    missing = metrics.get("ops_not_lowered") or []
    if missing:
        line += f"; not lowered: {', '.join(missing)}"
    return line
