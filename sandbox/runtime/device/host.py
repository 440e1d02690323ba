"""Host tuning for the emulator.

Threads: NumPy's OpenBLAS, PyTorch's intra-op pool and the OpenMP/MKL variables inherited by child
processes are pinned to one count; otherwise OpenBLAS, PyTorch's pool and the autograd device
thread oversubscribe the cores and a training step is several times slower and noisy.

Allocator: kernels create many short-lived multi-megabyte NumPy arrays. glibc serves those with
fresh mmap()s and returns them on free, so every temporary pays page faults on first touch; raising
the mmap and trim thresholds keeps freed blocks in the heap for reuse."""

import ctypes
import logging
import os
from pathlib import Path

import torch

log = logging.getLogger("torchport." + __name__)

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_OPENBLAS_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def loaded_openblas_libraries() -> list[str]:
    """Paths of the OpenBLAS shared libraries mapped into this process."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return []
    paths = set()
    for line in maps.read_text(encoding="utf-8", errors="replace").splitlines():
        path = line.split()[-1] if line.count(" ") >= 5 else ""
        if "openblas" in Path(path).name.lower():
            paths.add(path)
    return sorted(paths)


def set_openblas_threads(count: int) -> int:
    """Set the thread count of every loaded OpenBLAS; returns how many libraries were set."""
    done = 0
    for path in loaded_openblas_libraries():
        library = ctypes.CDLL(path)
        for symbol in _OPENBLAS_SETTERS:
            setter = getattr(library, symbol, None)
            if setter is not None:
                setter(ctypes.c_int(count))
                done += 1
                break
    return done


_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_HEAP_THRESHOLD = 1 << 30


def keep_freed_memory() -> bool:
    """Have glibc's malloc keep large blocks in the heap for reuse; False without glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _HEAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, 2 * _HEAP_THRESHOLD)
    )


def pin_threads(count: int) -> None:
    """Use `count` threads for BLAS and PyTorch (0 leaves everything as it is)."""
    if count <= 0:
        return
    for variable in THREAD_VARIABLES:
        os.environ.setdefault(variable, str(count))
    import numpy  # noqa: F401  # loads OpenBLAS so its thread count can be set now

    if not set_openblas_threads(count):
        log.debug("no OpenBLAS found in this process; BLAS threads follow the environment")
    torch.set_num_threads(count)
