"""The environment of a sandboxed process, built from scratch.

Nothing of the host's environment gets in: only a few neutral variables the programs need, what
the spec names, and the runtime's switches (which the spec cannot override).
"""

from dataclasses import dataclass

from sandbox.runtime import env as runtime_env
from sandbox.runtime_root import SITE_DIR
from sandbox.types import RunSpec


@dataclass(frozen=True)
class SandboxPaths:
    """Where things are, as the sandboxed process sees them."""

    bin_path: str
    """PATH: the folder holding the `python` that has torch comes first."""
    runtime_root: str
    """The folder holding `sandbox/runtime` and `sandbox/kernels`."""
    out_dir: str
    """The runtime's results folder."""
    home: str
    """HOME and TMPDIR."""


def sandbox_environment(spec: RunSpec, paths: SandboxPaths) -> dict[str, str]:
    """The complete environment of the sandboxed command."""
    env = {
        "PATH": paths.bin_path,
        "HOME": paths.home,
        "TMPDIR": paths.home,
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "OMP_NUM_THREADS": str(max(1, int(spec.cpus))),
    }
    env.update(spec.env)
    python_path = [paths.runtime_root, f"{paths.runtime_root}/{SITE_DIR}"]
    if spec.env.get("PYTHONPATH"):
        python_path.append(spec.env["PYTHONPATH"])
    env["PYTHONPATH"] = ":".join(python_path)
    env[runtime_env.TARGET] = spec.runtime
    env[runtime_env.RESULTS_DIR] = paths.out_dir
    env.pop(runtime_env.CHIP, None)
    env.pop(runtime_env.ACTIVE, None)
    if spec.chip:
        env[runtime_env.CHIP] = spec.chip
    return env
