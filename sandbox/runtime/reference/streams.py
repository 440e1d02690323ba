"""CUDA streams and events on the CPU: work is synchronous, so streams only keep their identity
and events keep the wall-clock time at which they were recorded (plus the volatility salt)."""

import itertools
import threading
import time
from types import TracebackType
from typing import Any

import torch

from sandbox.runtime.reference.state import ReferenceState

_stream_ids = itertools.count(1)


class EmulatedStream:
    """`torch.cuda.Stream`: identity, device and priority; every query says 'done'."""

    state: ReferenceState | None = None
    """Set when the runtime is installed: resolves `device=None` to the current device."""

    def __init__(
        self, device: Any = None, priority: int = 0, *, stream_id: int | None = None
    ) -> None:
        state = self.state
        index = 0
        if state is not None:
            parsed = state.current_device if device is None else state.parse_device(device)
            index = parsed if parsed is not None and parsed >= 0 else 0
        self.device_index = index
        self.priority = priority
        self.cuda_stream = next(_stream_ids) if stream_id is None else stream_id

    @property
    def device(self) -> torch.device:
        """`cuda:N`."""
        return torch.device("cuda", self.device_index)

    @property
    def stream_id(self) -> int:
        """The stream's id (`cuda_stream`)."""
        return self.cuda_stream

    def query(self) -> bool:
        """All work is done (the CPU ran it synchronously)."""
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait_event(self, event: "EmulatedEvent") -> None:
        """Nothing to wait for."""

    def wait_stream(self, stream: "EmulatedStream") -> None:
        """Nothing to wait for."""

    def record_event(self, event: "EmulatedEvent | None" = None) -> "EmulatedEvent":
        """Record `event` (a new one by default) now."""
        event = event or EmulatedEvent()
        event.record(self)
        return event

    def is_capturing(self) -> bool:
        """CUDA graph capture never runs here."""
        return False

    def __enter__(self) -> "EmulatedStream":
        """`with torch.cuda.Stream() as s:` makes `s` current (as `torch.cuda.stream(s)`)."""
        if self.registry is not None:
            self._context = StreamContext(self.registry, self)
            self._context.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        context = getattr(self, "_context", None)
        if context is not None:
            context.__exit__(None, None, None)

    registry: "StreamRegistry | None" = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EmulatedStream) and other.cuda_stream == self.cuda_stream

    def __hash__(self) -> int:
        return hash(("cuda-stream", self.cuda_stream))

    def __repr__(self) -> str:
        return (
            f"<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"
        )


class EmulatedEvent:
    """`torch.cuda.Event`: `record()` notes the time; `elapsed_time` is in milliseconds."""

    salt_ms = 0.0

    def __init__(
        self,
        enable_timing: bool = False,
        blocking: bool = False,
        interprocess: bool = False,
        external: bool = False,
    ) -> None:
        self.enable_timing = enable_timing
        self.recorded_at: float | None = None

    def record(self, stream: EmulatedStream | None = None) -> None:
        """Note the current time."""
        self.recorded_at = time.perf_counter()

    def wait(self, stream: EmulatedStream | None = None) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """Recorded work is done."""
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def elapsed_time(self, end_event: "EmulatedEvent") -> float:
        """Milliseconds between this event and `end_event`, as CUDA reports them."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.recorded_at is None or end_event.recorded_at is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event.recorded_at - self.recorded_at) * 1000.0 + self.salt_ms

    def ipc_handle(self) -> bytes:
        """Events cannot be shared between processes here."""
        raise RuntimeError("CUDA IPC event handles are not available in the reference runtime")


class StreamRegistry:
    """The current and default stream of every device, per thread."""

    def __init__(self, state: ReferenceState) -> None:
        self.state = state
        self._defaults = {
            index: EmulatedStream(index, stream_id=0) for index in range(state.device_count)
        }
        self._local = threading.local()

    def default(self, index: int) -> EmulatedStream:
        """The device's default (null) stream."""
        return self._defaults[self.state.check_index(index)]

    def current(self, index: int) -> EmulatedStream:
        """The stream work on the device goes to now."""
        current: dict[int, EmulatedStream] = getattr(self._local, "current", {})
        return current.get(index) or self.default(index)

    def set_current(self, stream: EmulatedStream) -> None:
        """Make `stream` current on its device."""
        if not hasattr(self._local, "current"):
            self._local.current = {}
        self._local.current[stream.device_index] = stream


class StreamContext:
    """`with torch.cuda.stream(s):` — `s` is current on its device inside the block."""

    def __init__(self, registry: StreamRegistry, stream: EmulatedStream | None) -> None:
        self.registry = registry
        self.stream = stream
        self._previous: EmulatedStream | None = None

    def __enter__(self) -> EmulatedStream | None:
        if self.stream is not None:
            self._previous = self.registry.current(self.stream.device_index)
            self.registry.set_current(self.stream)
        return self.stream

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._previous is not None:
            self.registry.set_current(self._previous)


def patch_record_stream() -> None:
    """`Tensor.record_stream(stream)` is a no-op, as for a stream that outlives the tensor: work is
    synchronous, so the allocator has no reuse to defer. (PyTorch's own method cannot take an
    emulated stream: its argument parser wants a `torch.Stream`.)"""

    def record_stream(self: torch.Tensor, stream: Any) -> None:
        if not isinstance(stream, EmulatedStream | torch.Stream):
            raise TypeError(
                "record_stream(): argument 's' (position 1) must be Stream, "
                f"not {type(stream).__name__}"
            )

    torch.Tensor.record_stream = record_stream  # type: ignore[method-assign,assignment]
