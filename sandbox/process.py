"""Run one host process with a wall-clock timeout and bounded, streamed output capture."""

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sandbox.output import CappedOutput

READ_CHUNK = 65536
READER_GRACE_S = 5.0
"""After the process is gone, how long the readers may take to drain the pipes."""


@dataclass
class ProcessOutcome:
    """How the process ended and what it printed."""

    exit_code: int
    """The exit status; 128 + N when killed by signal N (as shells and Docker report it)."""
    stdout: CappedOutput
    stderr: CappedOutput
    duration_s: float
    timed_out: bool


def run_captured(
    argv: list[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout_s: float,
    cap_bytes: int,
    kill_all: Callable[[], None] | None = None,
) -> ProcessOutcome:
    """Run `argv` in its own session; on timeout or Ctrl-C kill it (and, through `kill_all`,
    everything it started) before returning or re-raising."""
    stdout = CappedOutput("stdout", cap_bytes)
    stderr = CappedOutput("stderr", cap_bytes)
    start = time.monotonic()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
    )
    readers = [_start_reader(process.stdout, stdout), _start_reader(process.stderr, stderr)]
    timed_out = False
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if process.returncode is None:
            _kill(process, kill_all)
    duration = time.monotonic() - start
    for reader in readers:
        reader.join(READER_GRACE_S)
    code = process.returncode
    exit_code = 128 - code if code < 0 else code
    return ProcessOutcome(exit_code, stdout, stderr, duration, timed_out)


def _kill(process: subprocess.Popen[bytes], kill_all: Callable[[], None] | None) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group ended on its own meanwhile
        os.killpg(process.pid, signal.SIGKILL)
    if kill_all is not None:
        kill_all()
    process.wait()


def _start_reader(pipe: IO[bytes] | None, sink: CappedOutput) -> threading.Thread:
    assert pipe is not None  # Popen was given PIPE
    thread = threading.Thread(target=_drain, args=(pipe, sink), daemon=True)
    thread.start()
    return thread


def _drain(pipe: IO[bytes], sink: CappedOutput) -> None:
    with pipe:
        while chunk := os.read(pipe.fileno(), READ_CHUNK):
            sink.write(chunk)
