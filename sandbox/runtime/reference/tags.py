"""The logical device of every storage: which CPU storages stand for `cuda:N` memory.

Tensors live on the CPU; a storage tagged with a CUDA index makes every tensor on it (views,
`param.data = x`, the optimizer's state) report `cuda:N`. Each entry holds a `StorageWeakRef`, so
the storage's address cannot be reused while the entry exists; expired entries are swept out, and
their bytes leave the memory figures (`torch.cuda.memory_allocated` is estimated from them).
"""

from dataclasses import dataclass, field

import torch
from torch.multiprocessing.reductions import StorageWeakRef

_SWEEP_EVERY = 64


@dataclass
class _Entry:
    ref: StorageWeakRef
    device: int | None
    nbytes: int
    pinned: bool = False


@dataclass
class MemoryFigures:
    """Bytes of live logical-CUDA storages per device, and their peaks."""

    current: dict[int, int] = field(default_factory=dict)
    peak: dict[int, int] = field(default_factory=dict)
    allocations: dict[int, int] = field(default_factory=dict)
    frees: dict[int, int] = field(default_factory=dict)


def storage_key(tensor: torch.Tensor) -> int | None:
    """The address of `tensor`'s storage, or None for tensors without one (sparse, nested)."""
    try:
        with torch._C.DisableTorchFunction():
            return int(tensor.untyped_storage()._cdata)
    except (RuntimeError, NotImplementedError, TypeError):
        return None


class DeviceTags:
    """Storage address → logical device (None: CPU) and pinned-ness."""

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        self._since_sweep = 0
        self.memory = MemoryFigures()

    def device_of(self, tensor: torch.Tensor) -> int | None:
        """The CUDA index `tensor` reports, or None when it is a CPU tensor."""
        key = storage_key(tensor)
        if key is None:
            return None
        entry = self._entries.get(key)
        return None if entry is None else entry.device

    def device_of_storage(self, storage: torch.UntypedStorage) -> int | None:
        """The CUDA index a storage stands for, or None."""
        entry = self._entries.get(int(storage._cdata))
        return None if entry is None else entry.device

    def is_pinned(self, tensor: torch.Tensor) -> bool:
        """Whether `tensor` was made by `pin_memory()`."""
        key = storage_key(tensor)
        entry = None if key is None else self._entries.get(key)
        return bool(entry and entry.pinned)

    def tag(self, tensor: torch.Tensor, device: int | None, *, pinned: bool = False) -> None:
        """Make `tensor`'s storage (and so every view of it) report `cuda:device`."""
        with torch._C.DisableTorchFunction():
            try:
                storage = tensor.untyped_storage()
            except (RuntimeError, NotImplementedError, TypeError):
                return
            self.tag_storage(storage, device, pinned=pinned)

    def tag_storage(
        self, storage: torch.UntypedStorage, device: int | None, *, pinned: bool = False
    ) -> None:
        """Tag a storage directly (used by `torch.load` and `UntypedStorage.cuda`)."""
        key = int(storage._cdata)
        old = self._entries.get(key)
        if old is not None and not old.ref.expired():
            if old.device == device and old.pinned == pinned:
                return
            self._account(old.device, -old.nbytes)
        nbytes = int(storage.nbytes())
        self._entries[key] = _Entry(StorageWeakRef(storage), device, nbytes, pinned)
        self._account(device, nbytes)
        self._since_sweep += 1
        if self._since_sweep >= _SWEEP_EVERY:
            self.sweep()

    def sweep(self) -> None:
        """Drop the entries of storages that have been freed, and their bytes."""
        self._since_sweep = 0
        for key in [key for key, entry in self._entries.items() if entry.ref.expired()]:
            entry = self._entries.pop(key)
            self._account(entry.device, -entry.nbytes)

    def live_storages(self, device: int) -> int:
        """How many live storages are tagged with `device`."""
        self.sweep()
        return sum(1 for entry in self._entries.values() if entry.device == device)

    def reset_peak(self, device: int) -> None:
        """`torch.cuda.reset_peak_memory_stats`: the peak restarts from the current figure."""
        self.sweep()
        self.memory.peak[device] = self.memory.current.get(device, 0)

    def _account(self, device: int | None, nbytes: int) -> None:
        if device is None:
            return
        memory = self.memory
        memory.current[device] = memory.current.get(device, 0) + nbytes
        if nbytes > 0:
            memory.allocations[device] = memory.allocations.get(device, 0) + 1
            memory.peak[device] = max(memory.peak.get(device, 0), memory.current[device])
        else:
            memory.frees[device] = memory.frees.get(device, 0) + 1
