"""Running a program's commands in the sandbox with the probe recorder on.

Every run gets a fresh secret key for the probe files' digests, the print patterns of the spec,
and pinned thread counts (one thread: sums are reduced in the same order on every machine).
"""

import secrets
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.errors import BadInputError
from sandbox.types import RunResult, RunSpec, RuntimeName, Sandbox
from tools.parity.probeset import ProbeSet
from tools.parity.spec import ParitySpec

PATTERNS_ENV = "TORCHPORT_RT_PROBE_PATTERNS"
KEY_ENV = "TORCHPORT_RT_PROBE_KEY"
RNG_GPU_ENV = "TORCHPORT_RT_RNG_GPU"
PINNED_THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

Commands = Sequence[Sequence[str]] | Sequence[str] | str


@dataclass(frozen=True)
class RunLimits:
    """The sandbox limits each run gets (defaults: RunSpec's)."""

    timeout_s: float = 600.0
    memory_mb: int = 4096
    cpus: float = 2.0
    pids: int = 512
    output_cap_bytes: int = 1_000_000


@dataclass
class ProgramRun:
    """A program's commands, run once: results, merged probes, exit codes and metrics."""

    runtime: str
    results: list[RunResult] = field(default_factory=list)
    probes: ProbeSet = field(default_factory=ProbeSet)

    @property
    def exit_codes(self) -> list[int]:
        """Exit code of each command, in order."""
        return [result.exit_code for result in self.results]

    @property
    def metrics(self) -> list[dict[str, Any]]:
        """The runtime metrics of each command (empty dict where none was written)."""
        return [result.runtime_metrics or {} for result in self.results]

    @property
    def device_calls(self) -> int:
        """Ops the runtime counted on the device (native + fallback), over all commands."""
        return sum(
            int(m.get("native_calls", 0)) + int(m.get("fallback_calls", 0)) for m in self.metrics
        )

    @classmethod
    def from_results(
        cls, results: Sequence[RunResult], *, runtime: str, key: bytes | None = None
    ) -> "ProgramRun":
        """Wrap results someone else ran (`key`: the probe key they passed, to check digests)."""
        run = cls(runtime=runtime, results=list(results))
        for index, result in enumerate(results):
            prefix = f"cmd{index}/" if len(results) > 1 else ""
            run.probes.absorb(ProbeSet.from_folder(result.artifacts_dir, key=key), prefix)
        return run


def normalize_commands(commands: Commands) -> list[list[str]]:
    """Commands as argv lists: a string is one shell-like command, a list of strings many."""
    if isinstance(commands, str):
        commands = [commands]
    argvs = [shlex.split(c) if isinstance(c, str) else [str(a) for a in c] for c in commands]
    argvs = [argv for argv in argvs if argv]
    if not argvs:
        raise BadInputError(
            "no command to run", hint="pass --run 'python train.py' or set run in [tool.torchport]"
        )
    return argvs


def probe_env(
    spec: ParitySpec, key: bytes, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment that switches the recorder on with the spec's patterns."""
    import json

    return {
        **PINNED_THREADS,
        PATTERNS_ENV: json.dumps(spec.print_patterns),
        KEY_ENV: key.decode(),
        **(extra or {}),
    }


def run_program(
    sandbox: Sandbox,
    workdir: Path,
    commands: Sequence[Sequence[str]],
    spec: ParitySpec,
    *,
    runtime: RuntimeName,
    chip: str | None = None,
    env: Mapping[str, str] | None = None,
    limits: RunLimits | None = None,
) -> ProgramRun:
    """Run the commands as one pipeline on a copy of `workdir`: each command starts from the tree
    the previous one left (a checkpoint it wrote, say). Probes are read and their digests checked.
    """
    limits = limits or RunLimits()
    key = secrets.token_hex(16).encode()
    results = []
    with tempfile.TemporaryDirectory(prefix="torchport-pipeline-") as carry:
        current = workdir
        for index, command in enumerate(commands):
            keep = Path(carry) / f"after-{index}" if index + 1 < len(commands) else None
            run_spec = RunSpec(
                command=list(command),
                workdir=current,
                runtime=runtime,
                chip=chip,
                env=probe_env(spec, key, env),
                timeout_s=limits.timeout_s,
                memory_mb=limits.memory_mb,
                cpus=limits.cpus,
                pids=limits.pids,
                output_cap_bytes=limits.output_cap_bytes,
                keep_tree=keep,
            )
            results.append(sandbox.run(run_spec))
            current = keep or current
    return ProgramRun.from_results(results, runtime=runtime, key=key)


def runtime_for(target: str) -> RuntimeName:
    """The sandbox runtime a migrated program runs on: the emulated device, or plain CPU."""
    if target in ("tpu", "neuron"):
        return "tpu" if target == "tpu" else "neuron"
    return "cpu"


def run_candidate(
    migrated: Path,
    commands: Commands,
    *,
    sandbox: Sandbox,
    spec: ParitySpec,
    target: str,
    chip: str | None = None,
    limits: RunLimits | None = None,
) -> ProgramRun:
    """Run the migrated program on its target with the recorder on (signed probe files). The
    emulated device lays out its random draws for the GPU the reference emulates (the spec's
    `gpu_profile`), so seeded device draws agree with the original's."""
    env = {RNG_GPU_ENV: spec.gpu_profile} if spec.gpu_profile else None
    return run_program(
        sandbox,
        migrated,
        normalize_commands(commands),
        spec,
        runtime=runtime_for(target),
        chip=chip,
        env=env,
        limits=limits,
    )
