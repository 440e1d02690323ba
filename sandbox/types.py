"""The sandbox contract (DESIGN.md): `Sandbox.run(RunSpec) -> RunResult`.

Every backend (Docker, local) honours it: it works on its own copy of `workdir`, builds the
environment from scratch (only `env` gets in), caps output, enforces limits and the timeout, and
copies the runtime's result files out.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

RuntimeName = Literal["reference", "tpu", "neuron", "cpu"]

RESULTS_DIR_ENV = "TORCHPORT_RT_OUT"
"""Inside the sandbox: the folder where the runtime writes `metrics.json`, `probes.json`, ...
Everything written there is copied to `RunResult.artifacts_dir`."""


@dataclass(frozen=True)
class RunSpec:
    """One command to run on a copy of `workdir`."""

    command: list[str]
    workdir: Path
    runtime: RuntimeName = "cpu"
    timeout_s: float = 600.0
    env: dict[str, str] = field(default_factory=dict)
    memory_mb: int = 4096
    cpus: float = 2.0
    network: bool = False
    chip: str | None = None
    pids: int = 512
    output_cap_bytes: int = 1_000_000
    artifacts_dir: Path | None = None
    """Host folder that receives the runtime's result files; a fresh temporary one when None."""
    keep_tree: Path | None = None
    """Host folder (new or empty) that receives the work copy as the command left it, so the next
    command of a pipeline can start from it; nothing is kept when None."""


@dataclass
class RunResult:
    """What came out of one sandboxed run."""

    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    oom_killed: bool = False
    probes: dict[str, Any] | None = None
    """`probes.json` written by the runtime's probe recorder, parsed; None when absent."""
    runtime_metrics: dict[str, Any] | None = None
    """`metrics.json` written by the emulated runtime, parsed; None when absent."""
    artifacts_dir: Path | None = None
    """Host folder holding every file the runtime wrote to its results folder."""
    backend: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    message: str = ""
    """One line from the sandbox when the run ended abnormally (timeout, out of memory)."""

    @property
    def ok(self) -> bool:
        """The command exited 0 within its limits."""
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed


class Sandbox(Protocol):
    """An isolated place to run repo code."""

    name: str

    def run(self, spec: RunSpec) -> RunResult:
        """Run `spec.command` on a copy of `spec.workdir` and return what happened."""
        ...
