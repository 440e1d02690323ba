"""Kernel-enforced limits for the local sandbox: one fresh cgroup per run.

Where the cgroup filesystem is writable (root on cgroup v1, or a v2 subtree delegated to us), a
run gets its own cgroup with a memory limit (the kernel OOM-kills inside it and counts the kill),
a pids limit (a fork bomb stops there) and a CPU quota. Elsewhere the local sandbox falls back to
per-process rlimits (see `local_sandbox.py`).
"""

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from agent.errors import InfraError
from agent.log import get_logger

log = get_logger(__name__)

CGROUP_ROOT = Path("/sys/fs/cgroup")
CPU_PERIOD_US = 100_000
V1_CONTROLLERS = ("memory", "pids", "cpu")
V1_REQUIRED = ("memory", "pids")


@dataclass(frozen=True)
class CgroupLimits:
    """What one run's cgroup enforces."""

    memory_mb: int
    pids: int
    cpus: float


class Cgroup:
    """A cgroup made for one run (one folder on v2, one per controller on v1)."""

    def __init__(self, version: int, folders: list[Path]) -> None:
        self.version = version
        self.folders = folders

    @property
    def procs_files(self) -> list[Path]:
        """The files a process writes its pid to, to join the cgroup."""
        return [folder / "cgroup.procs" for folder in self.folders]

    def oom_kills(self) -> int:
        """How many processes the kernel killed for exceeding the memory limit."""
        for folder in self.folders:
            name = "memory.events" if self.version == 2 else "memory.oom_control"
            counters = folder / name
            if counters.is_file():
                for line in counters.read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        return 0

    def members(self) -> list[int]:
        """The pids still in the cgroup."""
        found: set[int] = set()
        for procs in self.procs_files:
            if procs.is_file():
                found.update(int(pid) for pid in procs.read_text().split())
        return sorted(found)

    def kill_all(self, attempts: int = 200) -> None:
        """SIGKILL every process in the cgroup, again until none is left (forks race the kill)."""
        kill_file = self.folders[0] / "cgroup.kill"
        if self.version == 2 and kill_file.is_file():
            kill_file.write_text("1")
        for _ in range(attempts):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):  # exited since the listing
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        raise InfraError(
            f"processes {self.members()} survive in cgroup {self.folders[0]}",
            hint="kill them by hand; the sandbox could not",
        )

    def remove(self) -> None:
        """Kill what is left, then delete the cgroup folders."""
        self.kill_all()
        for folder in self.folders:
            for attempt in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last exits are being reaped
                    if attempt == 49:
                        raise
                    time.sleep(0.02)


def cgroup_version(root: Path = CGROUP_ROOT) -> int | None:
    """2 for the unified hierarchy, 1 for per-controller hierarchies, None when neither."""
    if (root / "cgroup.controllers").is_file():
        return 2
    if all((root / name / "cgroup.procs").is_file() for name in V1_REQUIRED):
        return 1
    return None


def cgroup_problem(
    root: Path = CGROUP_ROOT, proc_self: Path = Path("/proc/self/cgroup")
) -> str | None:
    """None when this process can create limited cgroups, else why not."""
    version = cgroup_version(root)
    if version is None:
        return f"no cgroup v1 memory/pids or v2 hierarchy under {root}"
    if version == 1:
        unwritable = [name for name in V1_REQUIRED if not os.access(root / name, os.W_OK)]
        return (
            f"cgroup v1 {', '.join(unwritable)} not writable (needs root)" if unwritable else None
        )
    parent = _v2_parent(root, proc_self)
    enabled = (parent / "cgroup.subtree_control").read_text().split()
    missing = [name for name in ("memory", "pids") if name not in enabled]
    if missing:
        return f"cgroup v2 controllers {', '.join(missing)} not delegated to {parent}"
    if not os.access(parent, os.W_OK):
        return f"cgroup v2 folder {parent} not writable"
    return None


def _v2_parent(root: Path, proc_self: Path) -> Path:
    for line in proc_self.read_text().splitlines():
        if line.startswith("0::"):
            return root / line[3:].lstrip("/")
    return root


def create_cgroup(
    name: str,
    limits: CgroupLimits,
    root: Path = CGROUP_ROOT,
    proc_self: Path = Path("/proc/self/cgroup"),
) -> Cgroup:
    """Make the cgroup `torchport-<name>` with `limits`; InfraError when that is impossible."""
    problem = cgroup_problem(root, proc_self)
    if problem:
        raise InfraError(f"cannot create a cgroup: {problem}", hint="run as root or use Docker")
    if cgroup_version(root) == 2:
        cgroup = Cgroup(2, [_v2_parent(root, proc_self) / f"torchport-{name}"])
    else:
        folders = [root / c / f"torchport-{name}" for c in V1_CONTROLLERS if _v1_usable(root / c)]
        cgroup = Cgroup(1, folders)
    for folder in cgroup.folders:
        folder.mkdir()
    try:
        _write_limits(cgroup, limits)
    except BaseException:
        cgroup.remove()
        raise
    log.debug("cgroup %s: %s", [str(folder) for folder in cgroup.folders], limits)
    return cgroup


def _v1_usable(controller: Path) -> bool:
    return (controller / "cgroup.procs").is_file() and os.access(controller, os.W_OK)


def _write_limits(cgroup: Cgroup, limits: CgroupLimits) -> None:
    memory = limits.memory_mb * 1024 * 1024
    quota = int(limits.cpus * CPU_PERIOD_US)
    if cgroup.version == 2:
        values = {
            "memory.max": str(memory),
            "memory.swap.max": "0",
            "pids.max": str(limits.pids),
            "cpu.max": f"{quota} {CPU_PERIOD_US}",
        }
    else:
        values = {
            "memory.limit_in_bytes": str(memory),
            "memory.memsw.limit_in_bytes": str(memory),
            "pids.max": str(limits.pids),
            "cpu.cfs_period_us": str(CPU_PERIOD_US),
            "cpu.cfs_quota_us": str(quota),
        }
    written = set()
    for folder in cgroup.folders:
        for file_name, value in values.items():
            target = folder / file_name
            if target.is_file():
                target.write_text(value)
                written.add(file_name)
    memory_file = "memory.max" if cgroup.version == 2 else "memory.limit_in_bytes"
    if memory_file not in written or "pids.max" not in written:
        raise InfraError(
            f"cgroup {cgroup.folders[0]} has no memory or pids limit file",
            hint="enable the memory and pids controllers, or use Docker",
        )
