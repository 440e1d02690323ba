"""run_child: exit codes, the time limit, cancellation, and killing everything the child started,
including processes in sessions of their own (as the sandbox starts them)."""

import sys
import threading
import time
from pathlib import Path

import pytest

from evals.harness.child import Cancelled, descendants, run_child
from tests.processes import processes_with

SPAWNER = """
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", sys.argv[1], "own-session"],
                 start_new_session=True)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", sys.argv[1], "same-group"])
print("spawned", flush=True)
time.sleep(300)
"""


def spawner_argv(tmp_path: Path, token: str) -> list[str]:
    script = tmp_path / "spawner.py"
    script.write_text(SPAWNER)
    return [sys.executable, str(script), token]


def wait_for_children(token: str, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(processes_with(token)) < count:
        assert time.monotonic() < deadline, "the spawner did not start its children"
        time.sleep(0.1)


def test_exit_code_and_output(tmp_path: Path) -> None:
    log = tmp_path / "out.log"
    outcome = run_child(
        [sys.executable, "-c", "import sys; print('hello'); sys.exit(3)"],
        env={}, cwd=tmp_path, log_path=log, timeout_s=60,
    )  # fmt: skip
    assert (outcome.exit_code, outcome.timed_out) == (3, False)
    assert log.read_text() == "hello\n"


def test_timeout_kills_the_child_and_everything_it_started(tmp_path: Path) -> None:
    token = f"child-test-{tmp_path.name}"
    started = time.monotonic()
    outcome = run_child(
        spawner_argv(tmp_path, token), env={}, cwd=tmp_path, log_path=tmp_path / "log",
        timeout_s=3,
    )  # fmt: skip
    assert outcome.timed_out
    assert outcome.exit_code is None
    assert 3 <= outcome.seconds < 3 + 15
    assert time.monotonic() - started < 20
    assert "spawned" in (tmp_path / "log").read_text()
    assert processes_with(token) == []


def test_cancel_stops_the_child_and_raises(tmp_path: Path) -> None:
    token = f"cancel-test-{tmp_path.name}"
    cancel = threading.Event()
    threading.Thread(
        target=lambda: (wait_for_children(token, 3), cancel.set()), daemon=True
    ).start()
    with pytest.raises(Cancelled, match="the eval was interrupted"):
        run_child(
            spawner_argv(tmp_path, token), env={}, cwd=tmp_path, log_path=tmp_path / "log",
            timeout_s=120, cancel=cancel,
        )  # fmt: skip
    assert processes_with(token) == []


def test_descendants_walks_the_process_tree() -> None:
    import subprocess

    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time; "
         "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); time.sleep(30)"],
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not descendants(parent.pid):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        (child,) = descendants(parent.pid)
        assert Path(f"/proc/{child}/cmdline").read_bytes().endswith(b"time.sleep(30)\0")
    finally:
        for pid in descendants(parent.pid):
            subprocess.run(["kill", "-9", str(pid)], check=False)
        parent.kill()
        parent.wait()
