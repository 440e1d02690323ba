"""Limits of the local sandbox where no cgroup can be made: per-process rlimits, and telling an
out-of-memory failure from the program's stderr."""

import os
import re
from pathlib import Path

from sandbox.types import RunSpec

MEMORY_FAILURE = re.compile(
    r"^MemoryError\b|std::bad_alloc|Cannot allocate memory|DefaultCPUAllocator: can't allocate",
    re.MULTILINE,
)
"""What a process hitting RLIMIT_DATA prints (Python, C++, libc, PyTorch's CPU allocator)."""


def rlimits_for(spec: RunSpec, *, with_cgroup: bool) -> dict[str, list[int]]:
    """The rlimits of the sandboxed process tree: no core files; without a cgroup, also a data
    size limit per process and a process count limit for the user (root is exempt from it)."""
    limits = {"RLIMIT_CORE": [0, 0]}
    if not with_cgroup:
        data = spec.memory_mb * 1024 * 1024
        limits["RLIMIT_DATA"] = [data, data]
        processes = count_user_processes() + spec.pids
        limits["RLIMIT_NPROC"] = [processes, processes]
    return limits


def count_user_processes(proc: Path = Path("/proc")) -> int:
    """How many processes this user runs now (RLIMIT_NPROC counts all of them)."""
    uid = os.getuid()
    count = 0
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except FileNotFoundError:
                continue  # exited while we counted
    return count


def memory_failure_in(stderr: str) -> bool:
    """The program's stderr shows an allocation that failed for lack of memory."""
    return MEMORY_FAILURE.search(stderr) is not None
