"""The `torch.cuda` facade: device queries, seeding, streams and graphs, backed by a GPU profile."""

from collections.abc import Callable
from types import TracebackType
from typing import Any

import torch

from sandbox.runtime.reference import unavailable
from sandbox.runtime.reference.device_props import DeviceProperties
from sandbox.runtime.reference.emulation import Emulation
from sandbox.runtime.reference.state import ReferenceState
from sandbox.runtime.reference.streams import (
    EmulatedEvent,
    EmulatedStream,
    StreamContext,
    StreamRegistry,
)
from sandbox.runtime.rng.generator import PhiloxGenerator

ARCH_LIST = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


class CudaFacade:
    """Functions and classes that replace those of `torch.cuda` in the reference runtime."""

    def __init__(self, emulation: Emulation, streams: StreamRegistry) -> None:
        self.emulation = emulation
        self.state: ReferenceState = emulation.state
        self.streams = streams

    # -- devices -------------------------------------------------------------------------
    def index(self, device: Any = None) -> int:
        """The CUDA index `device` names (the current device for None)."""
        if device is None:
            return self.state.current_device
        if isinstance(device, torch.Tensor | torch.nn.Parameter):
            return device.get_device()
        parsed = self.state.parse_device(device)
        if parsed is None or parsed < 0:
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return parsed

    def set_device(self, device: Any) -> None:
        """`torch.cuda.set_device`: negative values are ignored, as in PyTorch."""
        index = self.index(device)
        if index >= 0:
            self.state.current_device = index

    def get_device_properties(self, device: Any = None) -> DeviceProperties:
        """Properties of the profile's GPU."""
        return DeviceProperties(self.state.profile, self.state.check_index(self.index(device)))

    def synchronize(self, device: Any = None) -> None:
        """All work is already done."""
        self.state.check_index(self.index(device))

    # -- random ----------------------------------------------------------------------------
    def generator(self, device: Any = "cuda") -> PhiloxGenerator:
        """The default generator of a device."""
        return self.emulation.generator(self.index(device))

    def manual_seed(self, seed: int) -> None:
        """Seed the current device's generator."""
        self.emulation.generator().manual_seed(int(seed))

    def manual_seed_all(self, seed: int) -> None:
        """Seed every device's generator."""
        for generator in self.emulation.generators:
            generator.manual_seed(int(seed))

    def seed(self) -> None:
        """Seed the current device from entropy."""
        self.emulation.generator().seed()

    def seed_all(self) -> None:
        """Seed every device with one random seed."""
        seed = self.emulation.generators[0].seed()
        self.manual_seed_all(seed)

    def initial_seed(self) -> int:
        """The current device's seed."""
        return self.emulation.generator().initial_seed()

    def get_rng_state(self, device: Any = "cuda") -> torch.Tensor:
        """16 bytes: seed and Philox offset."""
        return self.generator(device).get_state()

    def set_rng_state(self, new_state: torch.Tensor, device: Any = "cuda") -> None:
        """Restore `get_rng_state`'s bytes."""
        self.generator(device).set_state(new_state)

    def get_rng_state_all(self) -> list[torch.Tensor]:
        """Every device's state."""
        return [generator.get_state() for generator in self.emulation.generators]

    def set_rng_state_all(self, new_states: list[torch.Tensor]) -> None:
        """Restore every device's state."""
        for generator, state in zip(self.emulation.generators, new_states, strict=False):
            generator.set_state(state)

    # -- streams ---------------------------------------------------------------------------
    def current_stream(self, device: Any = None) -> EmulatedStream:
        """The current stream of a device."""
        return self.streams.current(self.index(device))

    def default_stream(self, device: Any = None) -> EmulatedStream:
        """The default stream of a device."""
        return self.streams.default(self.index(device))

    def stream(self, stream: EmulatedStream | None) -> StreamContext:
        """`with torch.cuda.stream(s):`."""
        return StreamContext(self.streams, stream)

    def set_stream(self, stream: EmulatedStream) -> None:
        """Make `stream` current."""
        if stream is not None:
            self.streams.set_current(stream)

    # -- graphs ----------------------------------------------------------------------------
    def graph_capture(self, *args: Any, **kwargs: Any) -> Any:
        """CUDA graphs cannot be captured on the CPU."""
        unavailable.record(self.state, "CUDA graph capture (torch.cuda.graph / CUDAGraph)")

    def functions(self) -> dict[str, Any]:
        """Name → replacement for `torch.cuda`."""
        state, profile = self.state, self.state.profile
        return {
            "is_available": lambda: True,
            "is_initialized": lambda: True,
            "init": lambda: None,
            "_lazy_init": lambda: None,
            "_is_in_bad_fork": lambda: False,
            "device_count": lambda: state.device_count,
            "current_device": lambda: state.current_device,
            "set_device": self.set_device,
            "get_device_name": lambda device=None: self.get_device_properties(device).name,
            "get_device_capability": lambda device=None: profile.capability,
            "get_device_properties": self.get_device_properties,
            "get_arch_list": lambda: list(ARCH_LIST),
            "get_gencode_flags": lambda: " ".join(f"-gencode compute={a}" for a in ARCH_LIST),
            "is_bf16_supported": lambda including_emulation=True: True,
            "is_tf32_supported": lambda: profile.major >= 8,
            "synchronize": self.synchronize,
            "ipc_collect": lambda: None,
            "can_device_access_peer": lambda device, peer: True,
            "current_blas_handle": lambda: 0,
            "utilization": lambda device=None: 0,
            "temperature": lambda device=None: 40,
            "power_draw": lambda device=None: 100_000,
            "clock_rate": lambda device=None: profile.clock_rate_khz // 1000,
            "list_gpu_processes": lambda device=None: f"GPU:{self.index(device)}\nno processes",
            "set_sync_debug_mode": lambda debug_mode: None,
            "get_sync_debug_mode": lambda: 0,
            **self._rng_and_stream_functions(),
        }

    def _rng_and_stream_functions(self) -> dict[str, Any]:
        return {
            "manual_seed": self.manual_seed,
            "manual_seed_all": self.manual_seed_all,
            "seed": self.seed,
            "seed_all": self.seed_all,
            "initial_seed": self.initial_seed,
            "get_rng_state": self.get_rng_state,
            "set_rng_state": self.set_rng_state,
            "get_rng_state_all": self.get_rng_state_all,
            "set_rng_state_all": self.set_rng_state_all,
            "default_generators": tuple(self.emulation.generators),
            "Stream": EmulatedStream,
            "ExternalStream": EmulatedStream,
            "Event": EmulatedEvent,
            "StreamContext": lambda stream: StreamContext(self.streams, stream),
            "stream": self.stream,
            "set_stream": self.set_stream,
            "current_stream": self.current_stream,
            "default_stream": self.default_stream,
            "is_current_stream_capturing": lambda: False,
            "get_stream_from_external": lambda data_ptr, device=None: EmulatedStream(device),
            "device": _device_class(self),
            "device_of": lambda obj: _device_class(self)(obj.get_device() if obj.is_cuda else -1),
            "make_graphed_callables": lambda callables, *args, **kwargs: callables,
            "CUDAGraph": _graph_class(self.graph_capture),
            "graph": self.graph_capture,
            "graph_pool_handle": lambda: (0, 0),
        }


def _device_class(facade: CudaFacade) -> type:
    """`torch.cuda.device(i)`: a context manager that switches the current device."""

    class device:  # noqa: N801 (torch's own class name)
        def __init__(self, device: Any) -> None:
            self.idx = -1 if device is None or device == -1 else facade.index(device)
            self.prev_idx = -1

        def __enter__(self) -> None:
            self.prev_idx = facade.state.current_device
            if self.idx >= 0:
                facade.state.current_device = self.idx

        def __exit__(
            self,
            exc_type: type[BaseException] | None,
            exc: BaseException | None,
            traceback: TracebackType | None,
        ) -> None:
            facade.state.current_device = self.prev_idx

    return device


def _graph_class(capture: Callable[..., Any]) -> type:
    """`torch.cuda.CUDAGraph`: creating one is fine, capturing raises 'reference unavailable'."""

    class CUDAGraph:
        def capture_begin(self, *args: Any, **kwargs: Any) -> None:
            capture()

        def replay(self) -> None:
            capture()

        def reset(self) -> None:
            """Nothing was captured."""

    return CUDAGraph
