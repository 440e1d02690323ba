"""What a TPU/Trainium host lacks: CUDA and Triton. `torch.cuda` reports no GPU and CUDA calls fail
with PyTorch's own CPU-build error; `import triton` fails with an explanation."""

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import torch

NO_CUDA = "Torch not compiled with CUDA enabled"


class TritonBlocker(importlib.abc.MetaPathFinder):
    """Refuses `import triton` (and its submodules) on the emulated device."""

    def __init__(self, target: str) -> None:
        self.target = target

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == "triton" or fullname.startswith("triton."):
            raise ModuleNotFoundError(
                f"No module named 'triton': Triton kernels target NVIDIA/AMD GPUs and do not run "
                f"on {self.target}. Replace the kernel with PyTorch ops (or a "
                f"{'Pallas' if self.target == 'tpu' else 'NKI'} kernel) before migrating.",
                name=fullname,
            )
        return None


def block_triton(target: str) -> None:
    """Install the Triton blocker first on sys.meta_path and forget any imported Triton."""
    for name in [m for m in sys.modules if m == "triton" or m.startswith("triton.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, TritonBlocker(target))


def _fail_cuda(*args: Any, **kwargs: Any) -> None:
    raise AssertionError(NO_CUDA)


def disable_cuda() -> None:
    """Make torch.cuda report no device and fail on use, even on a CUDA build of PyTorch."""
    torch.cuda.is_available = lambda: False
    torch.cuda.device_count = lambda: 0
    torch.cuda._lazy_init = _fail_cuda
