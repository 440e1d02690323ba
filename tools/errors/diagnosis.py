"""Turn a failed run into a diagnosis: the error kind, the user-code frame, and what to try."""

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tools.errors.catalogue import ErrorKind, match_output
from tools.errors.traceback import Frame, error_line, user_frames


@dataclass(frozen=True)
class Diagnosis:
    """Why a run failed, where in the user's code, and which rule categories may fix it."""

    kind: ErrorKind
    message: str
    advice: str
    location: Frame | None = None
    frames: tuple[Frame, ...] = ()
    categories: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def signature(self) -> str:
        """What makes two failures "the same" for the stuck detector (numbers and paths ignored)."""
        where = self.location.where() if self.location else "-"
        return f"{self.kind}|{where}|{_normalise(self.message)}"

    def one_line(self) -> str:
        """`kind at file:line: message`."""
        where = f" at {self.location.where()}" if self.location else ""
        return f"{self.kind}{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for the agent state and reports)."""
        data = asdict(self)
        data["kind"] = str(self.kind)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Diagnosis":
        """Inverse of `to_dict`."""
        location = data.get("location")
        return cls(
            kind=ErrorKind(data["kind"]),
            message=data["message"],
            advice=data["advice"],
            location=Frame(**location) if location else None,
            frames=tuple(Frame(**frame) for frame in data.get("frames", ())),
            categories=tuple(data.get("categories", ())),
            details=dict(data.get("details", {})),
        )


def diagnose_run(
    *,
    exit_code: int,
    stdout: str,
    stderr: str,
    workspace: Path,
    timed_out: bool = False,
    oom_killed: bool = False,
) -> Diagnosis:
    """Classify a failed run from its output; the innermost user frame is its location."""
    output = f"{stdout}\n{stderr}"
    frames = tuple(user_frames(stderr or stdout, workspace))
    location = frames[-1] if frames else None
    if timed_out:
        return Diagnosis(
            ErrorKind.TIMEOUT,
            "the run exceeded its time limit",
            "Look for a hang (a collective waiting for a rank, an endless loop) or raise the "
            "sandbox timeout.",
            location,
            frames,
        )
    if oom_killed:
        return Diagnosis(
            ErrorKind.SANDBOX_OOM,
            "the sandbox killed the run for exceeding its memory limit",
            "Reduce batch size or raise sandbox.memory_mb.",
            location,
            frames,
        )
    matched = match_output(output)
    message = error_line(stderr) or error_line(stdout) or f"exit code {exit_code}"
    if matched is None:
        return Diagnosis(
            ErrorKind.UNKNOWN,
            message,
            "Read the traceback at the location shown.",
            location,
            frames,
            details={"exit_code": exit_code},
        )
    entry, found = matched
    return Diagnosis(
        entry.kind,
        message if entry.kind in _KEEP_EXCEPTION_LINE else found.group(0).strip(),
        entry.advice,
        location,
        frames,
        entry.categories,
        details={"exit_code": exit_code},
    )


_KEEP_EXCEPTION_LINE = {ErrorKind.SYNTAX_ERROR, ErrorKind.IMPORT_ERROR, ErrorKind.FLOAT64_ON_DEVICE}


def _normalise(message: str) -> str:
    return re.sub(r"0x[0-9a-f]+|\d+(\.\d+)?", "#", message.lower()).strip()
