"""The `torch.tpu` / `torch.neuron` module: what `torch.get_device_module(target)` returns and what
PyTorch's PrivateUse1 glue calls (availability, device index, RNG hooks, memory, AMP dtypes)."""

import types
from dataclasses import dataclass
from typing import Any

import torch

from sandbox.runtime.device.context import DeviceContext, device_count
from sandbox.runtime.device.random import DeviceRandom
from sandbox.runtime.metrics import render_report


@dataclass(frozen=True)
class DeviceProperties:
    """What `get_device_properties()` reports for the emulated chip."""

    name: str
    total_memory: int
    type: str


class _DeviceGuard:
    """`torch.<target>.device(index)`: a context manager selecting the current device index."""

    def __init__(self, state: dict[str, int], index: Any) -> None:
        self.state = state
        self.index = _index_of(index)
        self.previous = state["current"]

    def __enter__(self) -> None:
        if self.index is not None:
            self.previous = self.state["current"]
            self.state["current"] = self.index

    def __exit__(self, *exc: object) -> None:
        self.state["current"] = self.previous


def _index_of(device: Any) -> int | None:
    if device is None:
        return None
    if isinstance(device, int):
        return device
    parsed = torch.device(device)
    return parsed.index if parsed.index is not None else 0


def _memory_functions(ctx: DeviceContext) -> dict[str, Any]:
    """The memory API of the device module (allocated = reserved: there is no caching)."""
    memory = ctx.memory

    def memory_stats(device: Any = None) -> dict[str, int]:
        figures = memory.figures()
        return {
            "allocated_bytes.all.current": figures.current_bytes,
            "allocated_bytes.all.peak": figures.peak_bytes,
            "reserved_bytes.all.current": figures.current_bytes,
            "reserved_bytes.all.peak": figures.peak_bytes,
        }

    return {
        "memory_stats": memory_stats,
        "memory_allocated": lambda device=None: memory.figures().current_bytes,
        "max_memory_allocated": lambda device=None: memory.figures().peak_bytes,
        "memory_reserved": lambda device=None: memory.figures().current_bytes,
        "max_memory_reserved": lambda device=None: memory.figures().peak_bytes,
        "reset_peak_memory_stats": lambda device=None: memory.reset_peak(),
        "mem_get_info": lambda device=None: (
            memory.budget - memory.figures().current_bytes,
            memory.budget,
        ),
        "empty_cache": lambda: None,
    }


def build_device_module(
    ctx: DeviceContext, event_class: type, rng: DeviceRandom
) -> types.ModuleType:
    """Make `torch.<target>` for the device of `ctx`, its generators those of `rng`."""
    target = ctx.target
    module = types.ModuleType(f"torch.{target}", f"The emulated {target} device (torchport).")
    state = {"current": 0}
    chip = ctx.config.profile.chip

    def set_device(device: Any) -> None:
        index = _index_of(device)
        if index is not None and not 0 <= index < device_count():
            raise RuntimeError(f"{target}: invalid device ordinal {index}")
        state["current"] = index or 0

    def metrics_report() -> str:
        """The torch_xla-style report of op counters, memory, transfers and syncs."""
        return render_report(ctx.metrics.snapshot())

    functions: dict[str, Any] = {
        "is_available": lambda: True,
        "is_initialized": lambda: True,
        "_is_in_bad_fork": lambda: False,
        "device_count": device_count,
        "current_device": lambda: state["current"],
        "set_device": set_device,
        "device": lambda index: _DeviceGuard(state, index),
        "synchronize": lambda device=None: None,
        **rng.module_functions(),
        "get_amp_supported_dtype": lambda: [torch.bfloat16, torch.float16],
        "is_bf16_supported": lambda including_emulation=True: True,
        "get_device_name": lambda device=None: f"{target} {chip.name} (torchport emulator)",
        "get_device_properties": lambda device=None: DeviceProperties(
            f"{target} {chip.name}", ctx.memory.budget, target
        ),
        **_memory_functions(ctx),
        "Event": event_class,
        "metrics_report": metrics_report,
        "metrics": ctx.metrics.snapshot,
        "profile": ctx.config.profile,
    }
    for name, value in functions.items():
        setattr(module, name, value)
    return module
