"""Why the original cannot serve as a reference, said precisely ("… at file:line")."""

from pathlib import Path

from agent.errors import TorchportError
from agent.exit_status import ExitStatus
from sandbox.types import RunResult
from tools.errors.traceback import error_line, user_frames

GOLDEN_HINT = (
    "record golden probes on a machine with an NVIDIA GPU (`agent parity record ORIGINAL --run "
    "CMD --out DIR`) and pass `--reference golden --golden DIR`, or run with `--reference cuda` "
    "on such a machine"
)


class ReferenceUnavailableError(TorchportError):
    """The original cannot be run on the CPU reference; parity needs golden probes or a GPU."""

    status = ExitStatus.MANUAL_WORK

    def __init__(self, message: str, *, hint: str | None = GOLDEN_HINT) -> None:
        super().__init__(message, hint=hint)


def unavailable_reason(result: RunResult, workdir: Path | None = None) -> str | None:
    """None when the run can serve as a reference, else what went wrong and where."""
    if result.timed_out:
        return "the original did not finish within the time limit on the CPU reference"
    if result.oom_killed:
        return "the original ran out of memory on the CPU reference"
    if result.exit_code == 0:
        return None
    entries = ((result.runtime_metrics or {}).get("reference") or {}).get("unavailable") or []
    if entries:
        last = entries[-1]
        return f"{last['what']} at {last['file']}:{last['line']}"
    message = error_line(result.stderr) or f"exit code {result.exit_code}"
    frames = user_frames(result.stderr, workdir) if workdir is not None else []
    where = frames[-1].where() if frames else _last_frame(result.stderr)
    return f"the original failed on the CPU reference ({message}) at {where}"


def _last_frame(stderr: str) -> str:
    """`file:line` of the last traceback frame outside libraries, by its path alone."""
    for line in reversed(stderr.splitlines()):
        stripped = line.strip()
        if stripped.startswith('File "') and "-packages/" not in stripped:
            path, _, rest = stripped[6:].partition('", line ')
            if "sandbox/runtime" in path or path.startswith("<"):
                continue
            return f"{Path(path).name}:{rest.split(',')[0]}"
    return "an unknown place (no traceback)"
