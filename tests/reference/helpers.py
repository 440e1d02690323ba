"""Running the CUDA-first test programs on the reference runtime, without a sandbox."""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).parent / "programs"
SITE = REPO / "sandbox" / "runtime" / "site"


@dataclass
class Outcome:
    """A finished run: its process and its results folder."""

    process: subprocess.CompletedProcess[str]
    out: Path
    work: Path

    def lines(self) -> dict[str, str]:
        """`name value` lines of stdout."""
        pairs = (line.split(" ", 1) for line in self.process.stdout.splitlines() if " " in line)
        return dict(pairs)


def base_env(out: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A small environment: the repo and the site folder on the path, one thread, results out."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PYTHONPATH": ":".join(filter(None, [str(REPO), str(SITE), os.environ.get("PYTHONPATH")])),
        "TORCHPORT_RT_OUT": str(out),
        "OMP_NUM_THREADS": "1",
        **(extra or {}),
    }


def run_program(
    script: str,
    tmp: Path,
    *args: str,
    target: str = "reference",
    chip: str | None = None,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Run `programs/<script>` on a fresh copy, with `python -m sandbox.runtime`."""
    work = tmp / "work"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(PROGRAMS / script, work / script)
    out = tmp / "out"
    runtime = ["--target", target, *(["--chip", chip] if chip else [])]
    command = [sys.executable, "-m", "sandbox.runtime", *runtime, script, *args]
    process = subprocess.run(
        command, cwd=work, env=base_env(out, env), capture_output=True, text=True, timeout=600
    )
    return Outcome(process, out, work)
