"""What one commit of a delivery holds, and the trailer that marks torchport's commits."""

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath

RUN_TRAILER = "Torchport-Run"
"""The trailer every torchport commit carries; a branch whose tip has it was made by torchport."""

_TRAILER_LINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*: ")


@dataclass(frozen=True)
class CommitPlan:
    """One commit to make: its message and the files it changes.

    `changes` maps a repo-relative POSIX path to the file's new content (as in the working tree;
    git's clean filters apply, as for `git add`) or to None to delete the file.
    """

    message: str
    changes: dict[str, bytes | None]

    def __post_init__(self) -> None:
        if not self.message.strip():
            raise ValueError("a commit needs a message that says what changed and why")
        if not self.changes:
            raise ValueError(f"commit {self.subject!r} changes no file")
        for path, content in self.changes.items():
            check_repo_path(path)
            if content is not None and not isinstance(content, bytes):
                raise TypeError(f"new content of {path} must be bytes or None (delete)")

    @property
    def subject(self) -> str:
        """The first line of the message."""
        return self.message.strip().splitlines()[0]


def check_repo_path(path: str) -> None:
    """Raise ValueError unless `path` is a plain relative POSIX path inside the repository."""
    parts = PurePosixPath(path).parts
    if (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or path != "/".join(parts)
        or any(part in (".", "..") for part in parts)
        or ".git" in parts
    ):
        raise ValueError(
            f"{path!r} is not a repo-relative path (want e.g. 'src/model.py': no leading '/', "
            "no '.', '..' or '.git' component, forward slashes)"
        )


def new_run_id() -> str:
    """A run id for the trailer when the caller has none: UTC time plus random hex."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def with_run_trailer(message: str, run_id: str) -> str:
    """`message` with a `Torchport-Run: <run_id>` trailer, joined to an existing trailer block."""
    body = message.strip("\n").rstrip()
    trailer = f"{RUN_TRAILER}: {run_id}"
    paragraphs = body.split("\n\n")
    last = paragraphs[-1].splitlines()
    has_trailer_block = len(paragraphs) > 1 and all(_TRAILER_LINE.match(line) for line in last)
    separator = "\n" if has_trailer_block else "\n\n"
    return f"{body}{separator}{trailer}\n"


def run_id_of(message: str) -> str | None:
    """The value of the `Torchport-Run` trailer in a commit message, if it has one."""
    paragraphs = message.strip().split("\n\n")
    if len(paragraphs) < 2:
        return None
    for line in paragraphs[-1].splitlines():
        if line.startswith(f"{RUN_TRAILER}: "):
            return line.removeprefix(f"{RUN_TRAILER}: ").strip()
    return None
