"""Find the user's frames in a Python traceback printed by a sandboxed run.

Paths inside the sandbox differ from the host's, so a frame belongs to the user's code when a
trailing part of its path names a file that exists in the workspace.
"""

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', re.M)
_SKIP_PARTS = ("site-packages", "dist-packages", "lib/python3", "sandbox/runtime", "<frozen")


@dataclass(frozen=True)
class Frame:
    """A traceback frame in the user's code, with a workspace-relative path."""

    path: str
    line: int
    function: str

    def where(self) -> str:
        """`path:line`, as errors show it."""
        return f"{self.path}:{self.line}"


def user_frames(output: str, workspace: Path) -> list[Frame]:
    """The frames of the last traceback in `output` that point into `workspace`, outermost first."""
    start = output.rfind("Traceback (most recent call last)")
    text = output[start:] if start >= 0 else output
    frames = []
    for found in _FRAME.finditer(text):
        raw_path = found["path"]
        if any(part in raw_path for part in _SKIP_PARTS):
            continue
        relative = workspace_relative(raw_path, workspace)
        if relative is not None:
            frames.append(Frame(relative, int(found["line"]), found["func"]))
    return frames


def workspace_relative(raw_path: str, workspace: Path) -> str | None:
    """The longest trailing part of `raw_path` that is a file under `workspace`, else None."""
    parts = PurePosixPath(raw_path).parts
    for first in range(len(parts)):
        candidate = PurePosixPath(*parts[first:])
        if candidate.is_absolute():
            continue
        if (workspace / candidate).is_file():
            return candidate.as_posix()
    return None


def error_line(output: str) -> str:
    """The last line that names an exception (`ValueError: …`), else the last non-empty line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Interrupt|Exit)\b.*?:", line):
            return line
    return lines[-1] if lines else ""


def code_around(workspace: Path, frame: Frame, radius: int = 6) -> str:
    """The lines around a frame, numbered, with the failing line marked."""
    path = workspace / frame.path
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    first = max(0, frame.line - 1 - radius)
    last = min(len(lines), frame.line + radius)
    shown = []
    for number in range(first, last):
        marker = ">" if number + 1 == frame.line else " "
        shown.append(f"{marker}{number + 1:>5} | {lines[number]}")
    return "\n".join(shown)
