"""Kill `agent fix` mid-run, then `agent fix --resume RUN_ID`: it continues from the last
completed node and reaches the same verdict."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from tests.e2e.repos import TINY_TRAIN, make_git_repo


def events(runs: Path) -> list[str]:
    trajectories = list(runs.glob("*/trajectory.json"))
    if not trajectories:
        return []
    try:
        return [event["node"] for event in json.loads(trajectories[0].read_text())["events"]]
    except json.JSONDecodeError:
        return []


@pytest.mark.slow
def test_kill_and_resume_reaches_parity(tmp_path: Path, cli_env: dict[str, str]) -> None:
    repo = make_git_repo(tmp_path / "repo", {"train.py": TINY_TRAIN})
    runs = tmp_path / "runs"
    argv = [sys.executable, "-m", "agent.cli", "fix", str(repo), "--target", "tpu", "--no-llm",
            "--run", "python train.py", "--run-dir", str(runs)]  # fmt: skip
    process = subprocess.Popen(
        argv,
        env=cli_env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    while "edit" not in events(runs):
        assert process.poll() is None, "agent fix ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    completed = events(runs)
    assert "report" not in completed
    run_id = next(runs.glob("*/trajectory.json")).parent.name

    code = main(["fix", "--resume", run_id, "--run-dir", str(runs)], env=cli_env)

    report = json.loads((runs / run_id / "report.json").read_text())
    assert code == ExitStatus.SUCCESS, report["stop_reason"]
    assert report["verdict"] == "parity"
    after = events(runs)
    assert after[: len(completed)] == completed
    resumed = after[len(completed) :]
    assert resumed[0] == "resume"
    assert not {"scan", "plan", "edit"} & set(resumed)
    assert "report" in resumed
