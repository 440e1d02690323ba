"""The reference runtime's state in one process: profile, devices, tags, switches and counters."""

import os
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import torch

from sandbox.runtime.reference.profiles import GpuProfile
from sandbox.runtime.reference.tags import DeviceTags

PRECISION_ENV = "TORCHPORT_RT_PRECISION"
"""`fp32`: CUDA autocast regions run in fp32; `bf16`/`fp16`: they (and explicit fp16 casts, for
bf16) use that dtype. Unset: as the program says. Used for the reference's precision reruns."""
PERTURB_ENV = "TORCHPORT_RT_PERTURB"
"""A relative size (e.g. `1e-6`): nudge every floating tensor the program draws or loads."""
SALT_ENV = "TORCHPORT_RT_SALT"
"""An integer: shifts volatile figures (memory, timings) so a second reference run exposes them."""
DEVICE_COUNT_ENV = "TORCHPORT_RT_DEVICE_COUNT"
"""How many GPUs the reference has (default: LOCAL_WORLD_SIZE under torchrun, else 1)."""

_N = TypeVar("_N", int, float)

CPU = -1
"""`parse_device` result for a CPU device."""

PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


class ReferenceConfigError(ValueError):
    """A TORCHPORT_RT_* switch of the reference runtime has a bad value."""


@dataclass(frozen=True)
class Options:
    """The switches read from the environment when the runtime is installed."""

    precision: str | None = None
    perturb: float = 0.0
    salt: int = 0
    device_count: int = 1

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Options":
        """Parse the TORCHPORT_RT_* switches; a bad value raises ReferenceConfigError."""
        precision = env.get(PRECISION_ENV) or None
        if precision is not None and precision not in PRECISIONS:
            raise ReferenceConfigError(
                f"{PRECISION_ENV}={precision!r}: expected one of {', '.join(PRECISIONS)}"
            )
        default_count = env.get("LOCAL_WORLD_SIZE") or "1"
        return cls(
            precision=precision,
            perturb=_number(env, PERTURB_ENV, "0", float),
            salt=_number(env, SALT_ENV, "0", int),
            device_count=max(1, _number(env, DEVICE_COUNT_ENV, default_count, int)),
        )


def _number(env: Mapping[str, str], name: str, default: str, kind: Callable[[str], _N]) -> _N:
    raw = env.get(name) or default
    try:
        return kind(raw)
    except ValueError:
        raise ReferenceConfigError(f"{name}={raw!r} is not a valid number") from None


@dataclass
class ReferenceState:
    """Everything the facade, the mode and the metrics share."""

    profile: GpuProfile
    options: Options
    tags: DeviceTags = field(default_factory=DeviceTags)
    cuda_calls: int = 0
    op_counts: Counter[str] = field(default_factory=Counter)
    unavailable: list[dict[str, object]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    autocast_regions: Counter[str] = field(default_factory=Counter)
    _local: threading.local = field(default_factory=threading.local)

    @property
    def device_count(self) -> int:
        """How many GPUs the program sees."""
        return self.options.device_count

    @property
    def current_device(self) -> int:
        """`torch.cuda.current_device()` of the calling thread (LOCAL_RANK-free: starts at 0)."""
        return getattr(self._local, "device", 0)

    @current_device.setter
    def current_device(self, index: int) -> None:
        self.check_index(index)
        self._local.device = index

    def check_index(self, index: int) -> int:
        """`index` when it names an existing GPU, else CUDA's `invalid device ordinal` error."""
        if not 0 <= index < self.device_count:
            raise torch.AcceleratorError(
                "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                "reported at some other API call, so the stacktrace below might be incorrect."
            )
        return index

    def parse_device(self, value: object) -> int | None:
        """CUDA index for a cuda device spec, CPU for a cpu one, None for anything else."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return self.check_index(value)
        if isinstance(value, str):
            try:
                value = torch.device(value)
            except RuntimeError:
                return None
        if isinstance(value, torch.device):
            if value.type == "cuda":
                return self.current_device if value.index is None else self.check_index(value.index)
            if value.type == "cpu":
                return CPU
        return None

    def warn_once(self, message: str) -> None:
        """Remember a runtime warning for the metrics file (each text once)."""
        if message not in self.warnings:
            self.warnings.append(message)


def environment() -> Mapping[str, str]:
    """The process environment (a seam for tests)."""
    return os.environ
