"""`torch.Event` for the emulated device. The C++ event of a Python backend can neither be
synchronised nor timed, so events of the device are `DeviceEvent`s: complete when recorded (the
emulated device is synchronous) and timed on the host clock. `torch.Event` becomes a subclass of
the native class that hands out `DeviceEvent`s for the device and native events otherwise, so
`isinstance` and subclassing keep working."""

import time
from typing import Any

import torch


def _is_device(device: Any, target: str) -> bool:
    if device is None:
        accelerator = torch.accelerator.current_accelerator()
        return accelerator is not None and accelerator.type == target
    if isinstance(device, int):
        return True
    return torch.device(device).type == target


class SynchronousEvent:
    """Event behaviour of the synchronous emulated device: complete once recorded, timed on the
    host clock."""

    _timing: bool
    _recorded_at: float | None

    def record(self, stream: Any = None) -> None:
        """Mark the current point of the device timeline."""
        self._recorded_at = time.perf_counter()

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, stream: Any = None) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """Always complete."""
        return True

    def elapsed_time(self, end_event: Any) -> float:
        """Milliseconds from this event to `end_event`."""
        if not (self._timing and getattr(end_event, "_timing", False)):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._recorded_at is None or end_event._recorded_at is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(end_event._recorded_at - self._recorded_at) * 1000.0


def make_event_classes(target: str) -> tuple[type, type]:
    """`(Event, DeviceEvent)` for `target`: the replacement of torch.Event and the device event."""
    native: Any = torch.Event

    class Event(native):
        """torch.Event, giving `DeviceEvent`s on the emulated device."""

        def __new__(
            cls,
            device: Any = None,
            *,
            enable_timing: bool = False,
            blocking: bool = False,
            interprocess: bool = False,
        ) -> Any:
            flags = {
                "enable_timing": enable_timing,
                "blocking": blocking,
                "interprocess": interprocess,
            }
            if issubclass(cls, DeviceEvent) or (cls is Event and _is_device(device, target)):
                return native.__new__(DeviceEvent, device="cpu", **flags)
            return native.__new__(cls, device=device, **flags)

    class DeviceEvent(SynchronousEvent, Event):
        """An event of the emulated device."""

        def __init__(self, device: Any = None, *, enable_timing: bool = False, **_: Any) -> None:
            self._timing = enable_timing
            self._recorded_at = None

        @property
        def device(self) -> torch.device:
            return torch.device(target, 0)

    return Event, DeviceEvent
