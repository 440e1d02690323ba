"""The profile's dtype rules at the points where a dtype reaches the device: allocation, copies to
the device, and the outputs of fallback ops."""

import warnings

import torch

from sandbox.runtime import env as runtime_env
from sandbox.runtime.device.errors import Float64UnsupportedError
from sandbox.runtime.metrics import RuntimeMetrics
from sandbox.runtime.profiles import TargetProfile

DOUBLE_DTYPES = (torch.float64, torch.complex128)


class DtypePolicy:
    """Applies the float64 policy (error/warn/allow) and the float16 advice of one profile."""

    def __init__(self, profile: TargetProfile, metrics: RuntimeMetrics, device: torch.device):
        self.profile = profile
        self.metrics = metrics
        self.device = device

    def guard(self, dtype: torch.dtype, op: str) -> None:
        """Check `dtype` for a tensor that `op` is about to place on the device."""
        if dtype in DOUBLE_DTYPES:
            self._double(dtype, op)
        elif dtype is torch.float16 and self.profile.float16 == "warn":
            self.warn(
                f"float16 on {self.profile.target}: the {self.profile.target} computes in "
                "bfloat16; prefer torch.bfloat16 (autocast defaults to it) over float16"
            )

    def _double(self, dtype: torch.dtype, op: str) -> None:
        target, chip = self.profile.target, self.profile.chip.name
        if self.profile.float64 == "error":
            raise Float64UnsupportedError(
                f"{op}: {target} ({chip}) does not support {dtype}, but this op would place a "
                f"{dtype} tensor on {self.device}. Use torch.float32 instead (.float(), "
                f"dtype=torch.float32, torch.set_default_dtype(torch.float32)); "
                f"{runtime_env.FLOAT64}=warn lets the emulator run it anyway."
            )
        first = self.metrics.note_float64(op)
        if first and self.profile.float64 == "warn":
            self.warn(f"{op}: {dtype} on {target} ({chip}) is slow or unsupported; use float32")

    def warn(self, message: str) -> None:
        """Emit a runtime warning once per distinct message and record it in the metrics."""
        if self.metrics.note_warning(message):
            warnings.warn(message, RuntimeWarning, stacklevel=3)
