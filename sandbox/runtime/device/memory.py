"""Device memory: one NumPy array per storage, accounted against the chip's budget.

A `DeviceBuffer` owns the array behind one device StorageImpl and is attached to the storage's
Python object (which PyTorch keeps alive exactly as long as the StorageImpl). Its release, when the
last tensor of that storage dies, returns the bytes to `DeviceMemory`."""

import threading

import numpy as np
import torch

from sandbox.runtime.device.errors import DeviceOutOfMemoryError, format_bytes
from sandbox.runtime.metrics import MemoryFigures


class DeviceMemory:
    """Bytes held on the emulated device, the high-water mark and the budget."""

    def __init__(self, budget: int, device_label: str) -> None:
        self.budget = budget
        self.device_label = device_label
        # reentrant: release() runs from DeviceBuffer.__del__, which GC may call in a locked section
        self._lock = threading.RLock()
        self.current = 0
        self.peak = 0

    def reserve(self, nbytes: int, what: str) -> None:
        """Account `nbytes` more, or raise DeviceOutOfMemoryError naming `what` and the budget."""
        with self._lock:
            after = self.current + nbytes
            if after > self.budget:
                in_use = self.current
            else:
                self.current = after
                self.peak = max(self.peak, after)
                return
        raise DeviceOutOfMemoryError(
            f"RESOURCE_EXHAUSTED: Out of memory while trying to allocate {format_bytes(nbytes)} "
            f"({nbytes} bytes, {what}) on {self.device_label}: {format_bytes(in_use)} of "
            f"{format_bytes(self.budget)} hbm already in use, exceeding the budget by "
            f"{format_bytes(in_use + nbytes - self.budget)}. Free tensors (del, smaller batch), "
            "use bfloat16, or run on a chip with more HBM (TORCHPORT_CHIP / TORCHPORT_RT_MEMORY)."
        )

    def release(self, nbytes: int) -> None:
        """Give back `nbytes`."""
        with self._lock:
            self.current -= nbytes

    def reset_peak(self) -> None:
        """Start a new high-water mark at the current figure."""
        with self._lock:
            self.peak = self.current

    def figures(self) -> MemoryFigures:
        """Peak, current and budget, in bytes."""
        with self._lock:
            return MemoryFigures(self.peak, self.current, self.budget)


class DeviceBuffer:
    """The memory of one device storage: a dense NumPy array, accounted while it lives."""

    __slots__ = ("_cpu_storage", "array", "memory", "nbytes")

    def __init__(self, array: np.ndarray, memory: DeviceMemory, nbytes: int) -> None:
        self.array = array
        self.memory = memory
        self.nbytes = nbytes
        self._cpu_storage: torch.UntypedStorage | None = None

    def cpu_storage(self) -> torch.UntypedStorage:
        """A CPU UntypedStorage over the same bytes (zero-copy), for the CPU fallback."""
        if self._cpu_storage is None:
            flat = self.array.ravel(order="K").view(np.uint8)
            self._cpu_storage = torch.from_numpy(flat).untyped_storage()
        return self._cpu_storage

    def __del__(self) -> None:
        self.memory.release(self.nbytes)
