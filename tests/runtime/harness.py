"""Running code on the emulated device from the test process.

The PrivateUse1 backend can be renamed once per process, and the pytest process runs everyone's
tests, so device code runs in child interpreters: `run_script` runs a script under
`python -m sandbox.runtime`, `run_device_suite` runs a pytest file of `tests/runtime/device/` with
the runtime activated at interpreter start (sitecustomize), as the sandbox does."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "sandbox" / "runtime" / "site"


def runtime_env(target: str | None = "tpu", **extra: str) -> dict[str, str]:
    """A child environment: the repository importable, the site hook on PYTHONPATH, one BLAS
    thread, no inherited TORCHPORT_* switches (plus `extra`), `target` activated if given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHPORT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SITE), str(REPO)])
    env.setdefault("OMP_NUM_THREADS", "1")
    if target:
        env["TORCHPORT_TARGET"] = target
    env.update(extra)
    return env


def run_script(
    source: str, tmp_path: Path, *, target: str = "tpu", timeout: int = 180, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run `source` (dedented) as a script under `python -m sandbox.runtime --target ...`."""
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    command = [sys.executable, "-m", "sandbox.runtime", "--target", target, str(script)]
    return subprocess.run(
        command,
        cwd=REPO,
        env=runtime_env(None, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_device_suite(name: str, *, target: str = "tpu", timeout: int = 600) -> None:
    """Run `tests/runtime/device/<name>` in a child pytest with the device active; fail with the
    child's report when any of its tests fails."""
    path = REPO / "tests" / "runtime" / "device" / name
    command = [sys.executable, "-m", "pytest", str(path), "-q", "-p", "no:cacheprovider", "-x"]
    done = subprocess.run(
        command,
        cwd=REPO,
        env=runtime_env(target),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise AssertionError(
            f"{name} failed on {target}:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
        )


def read_metrics(folder: Path, name: str = "metrics.json") -> dict[str, Any]:
    """The metrics document a run left in `folder`."""
    data: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return data
