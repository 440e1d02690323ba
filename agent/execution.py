"""Running code for the agent: the migrated program on the target, in the sandbox, with logs.

Every run's stdout/stderr and result files land in the run folder (`logs/<label>/…`), and the
state keeps a small summary that points there.
"""

import json
import shlex
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from agent.context import FixContext
from agent.errors import BadInputError
from agent.settings import Target
from sandbox.factory import run_spec
from sandbox.types import RunResult, RuntimeName

TAIL_CHARS = 4000


def runtime_for(target: str) -> RuntimeName:
    """The sandbox runtime that executes migrated code for `target`."""
    if target == Target.TPU:
        return "tpu"
    if target == Target.NEURON:
        return "neuron"
    return "cpu"


def split_command(command: str) -> list[str]:
    """`python train.py --steps 5` as an argv list (BadInputError when the quoting is broken)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BadInputError(f"run command {command!r} cannot be parsed: {exc}") from None
    if not argv:
        raise BadInputError("an empty run command was given", hint="pass --run 'python train.py'")
    return argv


def run_commands(
    ctx: FixContext, workdir: Path, runtime: RuntimeName, label: str, time_left_s: float
) -> list[RunResult]:
    """Run every configured command in order; stop at the first that fails."""
    results: list[RunResult] = []
    for index, command in enumerate(ctx.request.commands):
        folder = ctx.folder.logs / label / f"cmd{index}"
        folder.mkdir(parents=True, exist_ok=True)
        spec = run_spec(
            ctx.settings.sandbox,
            split_command(command),
            workdir,
            runtime=runtime,
            chip=ctx.settings.chip,
            artifacts_dir=folder / "artifacts",
        )
        spec = replace(spec, timeout_s=max(1.0, min(spec.timeout_s, time_left_s)))
        ctx.progress("run", f"{label}: {command}")
        result = ctx.sandbox.run(spec)
        save_result(result, folder, command)
        results.append(result)
        if not result.ok:
            break
    return results


def save_result(result: RunResult, folder: Path, command: str) -> None:
    """Write a run's output and its result (without the output) to `folder`."""
    (folder / "stdout.txt").write_text(result.stdout, encoding="utf-8")
    (folder / "stderr.txt").write_text(result.stderr, encoding="utf-8")
    data = asdict(result)
    data.pop("stdout")
    data.pop("stderr")
    data["command"] = command
    (folder / "result.json").write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")


def summarize(results: list[RunResult], commands: list[str], label: str) -> dict[str, Any]:
    """The state's record of one round of runs."""
    last = results[-1] if results else None
    metrics = last.runtime_metrics if last and last.runtime_metrics else {}
    return {
        "label": label,
        "commands": commands[: len(results)],
        "ok": bool(results) and all(result.ok for result in results),
        "exit_code": last.exit_code if last else None,
        "timed_out": bool(last and last.timed_out),
        "oom_killed": bool(last and last.oom_killed),
        "seconds": round(sum(result.duration_s for result in results), 3),
        "backend": last.backend if last else "",
        "ops_not_lowered": list(metrics.get("ops_not_lowered", [])),
        "native_share": metrics.get("native_share"),
        "peak_device_bytes": (metrics.get("memory") or {}).get("peak_bytes"),
    }


def output_tail(result: RunResult) -> str:
    """The end of a run's combined output, for prompts and reports."""
    text = (result.stdout + "\n" + result.stderr).strip()
    return text[-TAIL_CHARS:]
