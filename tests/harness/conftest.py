"""One real eval, shared by the slow harness tests: interrupted, then resumed.

The tiny suite: `a_train` (reaches parity), `b_hang` (sleeps: killed by the timeout),
`c_wrong` (reaches parity but its task expects manual: a wrong verdict), `d_broken` (a file that
does not parse: `agent fix` refuses it, no verdict). The first `agent eval` is interrupted
(SIGINT) while `b_hang` hangs; the second resumes the folder with two jobs and a time limit per
case of 2.5 times what `a_train` took (`c_wrong` is the same program), so `b_hang` is killed while
the others finish.
"""

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harness.tiny_suite import broken_case, hang_case, train_case
from tests.processes import processes_with

LIMIT_PER_A_TRAIN = 2.5


@pytest.fixture(scope="session")
def eval_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A clean environment for `agent eval` and its `agent fix` children: local sandbox."""
    home = tmp_path_factory.mktemp("home")
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(home)),
        "TORCHPORT_SANDBOX__TYPE": "local",
    }


@dataclass(frozen=True)
class Scenario:
    """What the interrupted and the resumed eval left."""

    suite: Path
    run_dir: Path
    after_interrupt: Path
    """A copy of the run folder's results as the interrupt left them."""
    token: str
    hung_pids: list[int]
    left_after_interrupt: list[int]
    interrupt_code: int
    resume_code: int
    resume_output: str
    limit_s: int
    """The resumed eval's --timeout."""
    outputs: Path
    """--json, --markdown and --plot copies from the resumed eval."""


def eval_argv(suite: Path, run_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "agent.cli", "eval", "--suite", str(suite), "--targets", "tpu",
        "--no-llm", "--run-dir", str(run_dir), *extra,
    ]  # fmt: skip


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s}s for {what}")
        time.sleep(0.5)


def interrupt_while_hanging(
    argv: list[str], env: dict[str, str], run_dir: Path, token: str
) -> tuple[int, list[int]]:
    """Start the eval, wait for `a_train` to finish and `b_hang` to hang, then Ctrl-C it."""
    log = (run_dir.parent / "interrupted.log").open("wb")
    process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: (run_dir / "results" / "a_train.tpu.json").is_file(), "a_train's result")
        wait_for(lambda: len(processes_with(token)) >= 3, "b_hang's sandboxed run")
        time.sleep(2)
        hung = processes_with(token)
        process.send_signal(signal.SIGINT)
        return process.wait(timeout=120), hung
    finally:
        if process.poll() is None:
            process.kill()
        log.close()


@pytest.fixture(scope="session")
def scenario(tmp_path_factory: pytest.TempPathFactory, eval_env: dict[str, str]) -> Scenario:
    base = tmp_path_factory.mktemp("scenario")
    suite = base / "suite"
    token = f"hang-{secrets.token_hex(6)}"
    train_case(suite, "a_train")
    hang_case(suite, "b_hang", token)
    train_case(suite, "c_wrong", seed=1, tpu="manual")
    broken_case(suite, "d_broken")
    run_dir = base / "run"
    code, hung = interrupt_while_hanging(
        eval_argv(suite, run_dir, "--timeout", "900"), eval_env, run_dir, token
    )
    time.sleep(1)
    left = processes_with(token)
    after = base / "after-interrupt"
    shutil.copytree(run_dir / "results", after / "results")
    a_train = json.loads((run_dir / "results" / "a_train.tpu.json").read_text())
    limit = max(30, round(LIMIT_PER_A_TRAIN * a_train["wall_s"]))
    outputs = base / "outputs"
    copies = ["--json", str(outputs / "eval.json"), "--markdown", str(outputs / "eval.md"),
              "--plot", str(outputs / "eval.png")]  # fmt: skip
    resumed = subprocess.run(
        eval_argv(suite, run_dir, "--timeout", str(limit), "--jobs", "2", *copies),
        env=eval_env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return Scenario(
        suite, run_dir, after, token, hung, left, code, resumed.returncode,
        resumed.stdout + resumed.stderr, limit, outputs,
    )  # fmt: skip
