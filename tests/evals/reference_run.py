"""Run a suite case's commands on the CUDA-on-CPU reference runtime, as the sandbox activates it.

The runtime is switched on by environment (`TORCHPORT_TARGET=reference`, the runtime's
`sitecustomize` on PYTHONPATH), so `python`, `torchrun` workers and `python -m pytest` all run
under it, on a copy of the case (the suite folder stays clean).
"""

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.tasks import TaskSpec
from sandbox.runtime import env as runtime_env
from sandbox.runtime_root import SITE_DIR

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class CommandRun:
    """One command of a case, as it ran."""

    command: str
    exit_code: int
    output: str
    seconds: float
    results: Path
    """The runtime's results folder of this command (`metrics.json`)."""

    def metrics(self) -> dict[str, Any]:
        """The reference runtime's metrics of this command."""
        document: dict[str, Any] = json.loads(
            (self.results / "metrics.json").read_text(encoding="utf-8")
        )
        return document


def reference_environment(results_dir: Path) -> dict[str, str]:
    """A small environment with the reference runtime switched on and one CPU thread."""
    return {
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": f"{REPO_ROOT}:{REPO_ROOT / SITE_DIR}",
        runtime_env.TARGET: "reference",
        runtime_env.RESULTS_DIR: str(results_dir),
    }


def run_case(spec: TaskSpec, workdir: Path) -> list[CommandRun]:
    """Copy the case to `workdir/case` and run its commands in order; stop at the first failure."""
    case_dir = workdir / "case"
    shutil.copytree(spec.root, case_dir, ignore=shutil.ignore_patterns("__pycache__", "*.pt"))
    deadline = time.monotonic() + spec.timeout_s
    runs = []
    for index, command in enumerate(spec.run):
        results = workdir / f"results-{index}"
        env = reference_environment(results)
        started = time.monotonic()
        completed = subprocess.run(
            ["bash", "-c", command],
            cwd=case_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=max(1.0, deadline - started),
            check=False,
        )
        output = completed.stdout + completed.stderr
        runs.append(
            CommandRun(command, completed.returncode, output, time.monotonic() - started, results)
        )
        if completed.returncode != 0:
            break
    return runs
