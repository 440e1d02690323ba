"""Run one `agent fix` as a child process with a wall-clock limit, and kill all of it when needed.

The child starts a session of its own; on timeout (or when the eval is cancelled) it gets SIGINT
first, so that `agent fix` stops its sandboxed runs itself, then, after a grace period, SIGKILL
for its process group and for every process it had started in other sessions (the sandbox puts
each run in its own session).
"""

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

GRACE_S = 10.0
"""How long the child may take to stop after SIGINT before it is killed."""
POLL_S = 0.5


class Cancelled(Exception):
    """The eval was interrupted while the child ran (the child has been stopped)."""


@dataclass(frozen=True)
class ChildOutcome:
    """How the child ended: its exit code (None when killed), how long it ran, whether it timed
    out."""

    exit_code: int | None
    seconds: float
    timed_out: bool


def run_child(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    log_path: Path,
    timeout_s: float,
    cancel: threading.Event | None = None,
) -> ChildOutcome:
    """Run `argv` with its output in `log_path`; stop it after `timeout_s` seconds or on `cancel`
    (then raise Cancelled)."""
    started = time.monotonic()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            start_new_session=True,
        )
        try:
            finished = _wait(process, started + timeout_s, cancel)
        finally:
            if process.returncode is None:
                stop_process_tree(process)
    seconds = round(time.monotonic() - started, 2)
    if not finished and cancel is not None and cancel.is_set():
        raise Cancelled(f"{argv[0]} stopped after {seconds}s: the eval was interrupted")
    return ChildOutcome(process.returncode if finished else None, seconds, not finished)


def _wait(
    process: subprocess.Popen[bytes], deadline: float, cancel: threading.Event | None
) -> bool:
    """True when the process ended by itself before the deadline and before a cancel."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (cancel is not None and cancel.is_set()):
            return False
        try:
            process.wait(timeout=min(POLL_S, remaining))
        except subprocess.TimeoutExpired:
            continue
        return True


def stop_process_tree(process: subprocess.Popen[bytes]) -> None:
    """SIGINT to the process group, then SIGKILL to it and to every descendant seen before."""
    family = descendants(process.pid)
    _signal_group(process.pid, signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):  # it may well not stop by itself
        process.wait(timeout=GRACE_S)
    family |= descendants(process.pid)
    _signal_group(process.pid, signal.SIGKILL)
    for pid in family:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + GRACE_S
    while any(alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.05)  # SIGKILL is delivered asynchronously: return once they are gone


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie waiting for its reaper is not)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rfind(")") + 2 :].split()[0] != "Z"


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group has ended meanwhile
        os.killpg(pgid, signum)


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (children, their children, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended while we read the table
            continue
        fields = text[text.rfind(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found
