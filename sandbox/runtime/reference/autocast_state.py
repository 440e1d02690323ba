"""The `cuda` autocast state, kept per thread and mapped onto the CPU's autocast key.

The program sees CUDA's state (`torch.is_autocast_enabled("cuda")`, fp16 by default); the CPU
key is on whenever a CUDA or a CPU region is, with the dtype of the innermost kind that is on.
"""

import threading
from typing import Any

import torch

from sandbox.runtime.reference.state import PRECISIONS, ReferenceState

_set_enabled = torch._C.set_autocast_enabled
_set_dtype = torch._C.set_autocast_dtype
_is_enabled = torch._C.is_autocast_enabled
_get_dtype = torch._C.get_autocast_dtype


class AutocastState:
    """Per-thread CUDA and CPU autocast flags and dtypes, as the program sets them."""

    def __init__(self, state: ReferenceState) -> None:
        self.state = state
        self._local = threading.local()

    def _get(self, name: str, default: Any) -> Any:
        return getattr(self._local, name, default)

    @property
    def cuda_enabled(self) -> bool:
        """Whether the program is inside an enabled `autocast("cuda")` region."""
        return bool(self._get("cuda_enabled", False))

    @property
    def cuda_dtype(self) -> torch.dtype:
        """The dtype the program asked CUDA autocast for (fp16 by default)."""
        return self._get("cuda_dtype", torch.float16)

    @property
    def cpu_enabled(self) -> bool:
        """Whether the program is inside an enabled `autocast("cpu")` region."""
        return bool(self._get("cpu_enabled", False))

    @property
    def cpu_dtype(self) -> torch.dtype:
        """The dtype the program asked CPU autocast for (bf16 by default)."""
        return self._get("cpu_dtype", torch.bfloat16)

    def set_enabled(self, *args: Any) -> None:
        """`torch.set_autocast_enabled([device_type,] enabled)`."""
        device, enabled = ("cuda", args[0]) if len(args) == 1 else (args[0], args[1])
        if device == "cuda":
            self._local.cuda_enabled = bool(enabled)
        elif device == "cpu":
            self._local.cpu_enabled = bool(enabled)
        else:
            _set_enabled(device, enabled)
            return
        self._apply()

    def is_enabled(self, device: str | None = None) -> bool:
        """`torch.is_autocast_enabled([device_type])` (no argument means CUDA)."""
        if device in (None, "cuda"):
            return self.cuda_enabled
        if device == "cpu":
            return self.cpu_enabled
        return bool(_is_enabled(device))

    def get_dtype(self, device: str) -> torch.dtype:
        """`torch.get_autocast_dtype(device_type)`."""
        if device == "cuda":
            return self.cuda_dtype
        if device == "cpu":
            return self.cpu_dtype
        return _get_dtype(device)

    def set_dtype(self, device: str, dtype: torch.dtype) -> None:
        """`torch.set_autocast_dtype(device_type, dtype)`."""
        if device == "cuda":
            self._local.cuda_dtype = dtype
            if self.cuda_enabled:
                self.state.autocast_regions[str(dtype).removeprefix("torch.")] += 1
        elif device == "cpu":
            self._local.cpu_dtype = dtype
        else:
            _set_dtype(device, dtype)
            return
        self._apply()

    def _apply(self) -> None:
        precision = self.state.options.precision
        cuda_on = self.cuda_enabled and precision != "fp32"
        _set_enabled("cpu", cuda_on or self.cpu_enabled)
        if cuda_on:
            dtype = PRECISIONS[precision] if precision in ("bf16", "fp16") else self.cuda_dtype
        else:
            dtype = self.cpu_dtype
        _set_dtype("cpu", dtype)

    def functions(self) -> dict[str, Any]:
        """Name → replacement on the `torch` module."""
        return {
            "set_autocast_enabled": self.set_enabled,
            "is_autocast_enabled": self.is_enabled,
            "get_autocast_dtype": self.get_dtype,
            "set_autocast_dtype": self.set_dtype,
            "get_autocast_gpu_dtype": lambda: self.cuda_dtype,
            "set_autocast_gpu_dtype": lambda dtype: self.set_dtype("cuda", dtype),
            "is_autocast_cpu_enabled": lambda: self.cpu_enabled,
            "set_autocast_cpu_enabled": lambda enabled: self.set_enabled("cpu", enabled),
            "get_autocast_cpu_dtype": lambda: self.cpu_dtype,
            "set_autocast_cpu_dtype": lambda dtype: self.set_dtype("cpu", dtype),
        }
