"""`torch.accelerator`, `torch.get_device_module`, version and backend flags as a CUDA machine has.

Optimizers (`Adam.step` asks `torch.accelerator.current_stream().is_capturing()`) and the
DataLoader's pinned-memory thread query `torch.accelerator`, so it must see the CUDA device too.
"""

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

from sandbox.runtime.reference.cuda_api import CudaFacade
from sandbox.runtime.reference.memory import MemoryFacade

CUDA_VERSION = "12.8"
CUDNN_VERSION = 91002


_MEMORY_FUNCTIONS = (
    "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_stats", "reset_peak_memory_stats",
    "reset_accumulated_memory_stats",
)  # fmt: skip


def accelerator_functions(cuda: CudaFacade, memory: MemoryFacade) -> dict[str, Any]:
    """Name → replacement for `torch.accelerator`."""
    state = cuda.state

    def current_accelerator(check_available: bool = False) -> torch.device:
        return torch.device("cuda")

    def set_device_index(device: Any, /) -> None:
        cuda.set_device(device)

    @contextmanager
    def device_index(device: int | None, /) -> Iterator[None]:
        previous = state.current_device
        if device is not None:
            cuda.set_device(device)
        try:
            yield
        finally:
            state.current_device = previous

    def get_device_capability(device: Any = None, /) -> dict[str, Any]:
        return {
            "supported_dtypes": [torch.float32, torch.float16, torch.bfloat16, torch.float64],
            "major": state.profile.major,
            "minor": state.profile.minor,
        }

    return {
        "current_accelerator": current_accelerator,
        "is_available": lambda: True,
        "device_count": lambda: state.device_count,
        "current_device_index": lambda: state.current_device,
        "current_device_idx": lambda: state.current_device,
        "set_device_index": set_device_index,
        "set_device_idx": set_device_index,
        "device_index": device_index,
        "current_stream": lambda device=None, /: cuda.current_stream(device),
        "set_stream": cuda.set_stream,
        "synchronize": lambda device=None, /: cuda.synchronize(device),
        "get_memory_info": lambda device=None, /: memory.mem_get_info(device),
        "get_device_capability": get_device_capability,
        "empty_host_cache": lambda: None,
        **{name: memory.functions()[name] for name in _MEMORY_FUNCTIONS},
    }


def patch_device_module() -> None:
    """`torch.get_device_module("cuda")` returns the facade-backed `torch.cuda`."""
    original = torch.get_device_module

    @functools.wraps(original)
    def get_device_module(device: Any = None) -> Any:
        if device is None:
            return torch.cuda
        name = device.type if isinstance(device, torch.device) else str(device).split(":")[0]
        return torch.cuda if name == "cuda" else original(device)

    torch.get_device_module = get_device_module  # type: ignore[assignment]


def patch_versions_and_backends() -> None:
    """`torch.version.cuda`, cuDNN and the `torch.backends.cuda` build flag say CUDA is there."""
    torch.version.cuda = CUDA_VERSION
    torch.backends.cudnn.version = lambda: CUDNN_VERSION
    torch.backends.cudnn.is_available = lambda: True
    torch.backends.cuda.is_built = lambda: True


def patch_nvtx() -> None:
    """NVTX ranges are profiler annotations: no-ops here."""
    nvtx = torch.cuda.nvtx

    @contextmanager
    def range_context(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:
        yield

    nvtx.range_push = lambda msg: 0
    nvtx.range_pop = lambda: 0
    nvtx.range_start = lambda msg: 0
    nvtx.range_end = lambda range_id: None
    nvtx.mark = lambda msg: None
    nvtx.range = range_context
