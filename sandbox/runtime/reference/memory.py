"""`torch.cuda` memory figures, estimated from the live logical-CUDA storages.

Real allocators round and cache; these figures are estimates (bytes of live tensors, reserved
rounded to 2 MiB segments). They are volatile by nature: the salt shifts them on the reference's
second run so that parity excludes anything derived from them.
"""

from collections import OrderedDict
from typing import Any

from sandbox.runtime.reference.state import ReferenceState

_SEGMENT = 2 << 20
_MIB = 1 << 20


class MemoryFacade:
    """The memory functions of `torch.cuda` (and `torch.accelerator`)."""

    def __init__(self, state: ReferenceState) -> None:
        self.state = state
        self.fraction: dict[int, float] = {}

    def _index(self, device: Any = None) -> int:
        if device is None:
            return self.state.current_device
        index = self.state.parse_device(device)
        return self.state.current_device if index is None or index < 0 else index

    def _salt(self) -> int:
        return self.state.options.salt * _MIB

    def memory_allocated(self, device: Any = None) -> int:
        """Bytes held by live tensors on the device."""
        tags = self.state.tags
        tags.sweep()
        return tags.memory.current.get(self._index(device), 0) + self._salt()

    def max_memory_allocated(self, device: Any = None) -> int:
        """Peak of `memory_allocated` since start or the last reset."""
        self.state.tags.sweep()
        return self.state.tags.memory.peak.get(self._index(device), 0) + self._salt()

    def memory_reserved(self, device: Any = None) -> int:
        """`memory_allocated` rounded up to whole 2 MiB segments."""
        return -(-self.memory_allocated(device) // _SEGMENT) * _SEGMENT

    def max_memory_reserved(self, device: Any = None) -> int:
        """`max_memory_allocated` rounded up to whole 2 MiB segments."""
        return -(-self.max_memory_allocated(device) // _SEGMENT) * _SEGMENT

    def reset_peak_memory_stats(self, device: Any = None) -> None:
        """Restart the peaks from the current figures."""
        self.state.tags.reset_peak(self._index(device))

    def reset_accumulated_memory_stats(self, device: Any = None) -> None:
        """Zero the allocation and free counters."""
        memory = self.state.tags.memory
        index = self._index(device)
        memory.allocations[index] = 0
        memory.frees[index] = 0

    def mem_get_info(self, device: Any = None) -> tuple[int, int]:
        """(free, total) bytes of the device."""
        total = self.state.profile.total_memory
        return (max(0, total - self.memory_reserved(device)), total)

    def memory_stats(self, device: Any = None) -> "OrderedDict[str, Any]":
        """The keys programs read most from `torch.cuda.memory_stats()`."""
        index = self._index(device)
        memory = self.state.tags.memory
        allocated, peak = self.memory_allocated(index), self.max_memory_allocated(index)
        reserved, peak_reserved = self.memory_reserved(index), self.max_memory_reserved(index)
        stats: OrderedDict[str, Any] = OrderedDict()
        for prefix, current, top in (
            ("allocated_bytes", allocated, peak),
            ("active_bytes", allocated, peak),
            ("requested_bytes", allocated, peak),
            ("reserved_bytes", reserved, peak_reserved),
        ):
            for pool in ("all", "large_pool", "small_pool"):
                share = 1 if pool != "small_pool" else 0
                stats[f"{prefix}.{pool}.current"] = current * share
                stats[f"{prefix}.{pool}.peak"] = top * share
                stats[f"{prefix}.{pool}.allocated"] = current * share
                stats[f"{prefix}.{pool}.freed"] = 0
        stats["allocation.all.allocated"] = memory.allocations.get(index, 0)
        stats["allocation.all.freed"] = memory.frees.get(index, 0)
        stats["num_alloc_retries"] = 0
        stats["num_ooms"] = 0
        stats["num_device_alloc"] = reserved // _SEGMENT
        stats["num_device_free"] = 0
        return stats

    def memory_summary(self, device: Any = None, abbreviated: bool = False) -> str:
        """A short text summary in the spirit of `torch.cuda.memory_summary()`."""
        index = self._index(device)
        return (
            f"|  PyTorch CUDA memory summary (reference runtime estimate), device ID {index}  |\n"
            f"|  Allocated memory: {self.memory_allocated(index) / _MIB:.1f} MiB "
            f"(peak {self.max_memory_allocated(index) / _MIB:.1f} MiB)  |\n"
            f"|  Reserved memory:  {self.memory_reserved(index) / _MIB:.1f} MiB  |\n"
        )

    def set_per_process_memory_fraction(self, fraction: float, device: Any = None) -> None:
        """Remember the fraction (the CPU does not enforce it)."""
        if not 0 <= fraction <= 1:
            raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
        self.fraction[self._index(device)] = fraction

    def get_per_process_memory_fraction(self, device: Any = None) -> float:
        """The fraction set last (1.0 by default)."""
        return self.fraction.get(self._index(device), 1.0)

    def functions(self) -> dict[str, Any]:
        """Name → function, for `torch.cuda`, `torch.cuda.memory` and `torch.accelerator`."""
        return {
            "memory_allocated": self.memory_allocated,
            "max_memory_allocated": self.max_memory_allocated,
            "memory_reserved": self.memory_reserved,
            "max_memory_reserved": self.max_memory_reserved,
            "memory_cached": self.memory_reserved,
            "max_memory_cached": self.max_memory_reserved,
            "reset_peak_memory_stats": self.reset_peak_memory_stats,
            "reset_max_memory_allocated": self.reset_peak_memory_stats,
            "reset_max_memory_cached": self.reset_peak_memory_stats,
            "reset_accumulated_memory_stats": self.reset_accumulated_memory_stats,
            "mem_get_info": self.mem_get_info,
            "memory_stats": self.memory_stats,
            "memory_stats_as_nested_dict": self.memory_stats,
            "memory_summary": self.memory_summary,
            "set_per_process_memory_fraction": self.set_per_process_memory_fraction,
            "get_per_process_memory_fraction": self.get_per_process_memory_fraction,
            "memory_snapshot": lambda *args, **kwargs: [],
            "empty_cache": lambda *args, **kwargs: None,
            "device_memory_used": self.memory_reserved,
        }
