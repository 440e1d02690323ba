"""Python-level fixes PyTorch needs for a Python-only PrivateUse1 device (feasibility obstacles
7-11, 13, 18): printing, storage copies, checkpoint loading, CPU pinned memory, torch.accelerator
synchronize/memory/events, and tied weights across `.to(device)`."""

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch._tensor_str

from sandbox.runtime.device.context import DeviceContext

_ORIGINALS: dict[str, Any] = {}


def _keep(name: str, value: Any) -> Any:
    _ORIGINALS.setdefault(name, value)
    return _ORIGINALS[name]


def patch_printing(ctx: DeviceContext) -> None:
    """Format device tensors from a host copy (torch would convert to float64 on the device)."""
    original: Callable[..., str] = _keep("_tensor_str", torch._tensor_str._tensor_str)
    target = ctx.target

    @functools.wraps(original)
    def tensor_str(self: torch.Tensor, indent: int) -> str:
        if self.device.type == target:
            self = self.cpu()
        return original(self, indent)

    torch._tensor_str._tensor_str = tensor_str


def patch_storages(ctx: DeviceContext) -> None:
    """Storage clone/cpu for device storages through NumPy (there is no C++ device allocator)."""
    target = ctx.target
    clone: Callable[..., Any] = _keep("UntypedStorage.clone", torch.UntypedStorage.clone)
    to_cpu: Callable[..., Any] = _keep("UntypedStorage.cpu", torch.UntypedStorage.cpu)

    def storage_bytes(storage: torch.UntypedStorage) -> np.ndarray:
        return storage._np.array.ravel(order="K").view(np.uint8)  # type: ignore[attr-defined]

    @functools.wraps(clone)
    def clone_storage(self: torch.UntypedStorage) -> torch.UntypedStorage:
        if self.device.type != target:
            return clone(self)
        return ctx.allocator.storage(storage_bytes(self).copy(), "UntypedStorage.clone")

    @functools.wraps(to_cpu)
    def storage_to_cpu(self: torch.UntypedStorage) -> torch.UntypedStorage:
        if self.device.type != target:
            return to_cpu(self)
        ctx.metrics.count_transfer("device_to_host", self.nbytes())
        ctx.metrics.count_host_sync()
        return torch.from_numpy(storage_bytes(self).copy()).untyped_storage()

    native_new = _keep("UntypedStorage.__new__", torch.UntypedStorage.__new__)

    def new_storage(cls: type, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        """`torch.UntypedStorage(n, device=...)`: zeroed NumPy memory on the device (PyTorch
        would call a device allocator the Python backend does not have, and crash)."""
        if device is None or torch.device(device).type != target:
            return native_new(cls, *args, device=device, **kwargs)
        if len(args) != 1 or kwargs:
            raise TypeError(f"UntypedStorage on {target} takes a size or a sequence of bytes")
        size_or_bytes = args[0]
        if isinstance(size_or_bytes, int):
            data = np.zeros(size_or_bytes, np.uint8)
        else:
            data = np.asarray(list(size_or_bytes), dtype=np.uint8)
        return ctx.allocator.storage(data, "UntypedStorage")

    torch.UntypedStorage.__new__ = new_storage  # type: ignore[method-assign]
    torch.UntypedStorage.clone = clone_storage  # type: ignore[method-assign, assignment]
    torch.UntypedStorage.cpu = storage_to_cpu  # type: ignore[method-assign, assignment]


def register_checkpoint_location(ctx: DeviceContext) -> None:
    """torch.load onto the device: build device storages from the loaded bytes."""
    target = ctx.target

    def tag(storage: Any) -> str | None:
        return f"{target}:0" if storage.device.type == target else None

    def restore(storage: Any, location: str) -> Any:
        if not (location == target or location.startswith(target + ":")):
            return None
        if storage.device.type == target:
            return storage
        data = (
            np.frombuffer(bytes(storage), dtype=np.uint8).copy()
            if storage.nbytes()
            else (np.empty(0, np.uint8))
        )
        ctx.metrics.count_transfer("host_to_device", data.nbytes)
        return ctx.allocator.storage(data, "torch.load")

    torch.serialization.register_package(19, tag, restore)


def patch_pinned_memory() -> None:
    """CPU pin_memory(): no pinned allocator exists for the device, so pinning returns a copy of
    the host tensor (as a TPU host's pinned staging buffer would hold)."""
    library = torch.library.Library("aten", "IMPL")
    _ORIGINALS["pin_library"] = library

    def pin_memory(self: torch.Tensor, device: Any = None) -> torch.Tensor:
        return self.clone()

    def is_pinned(self: torch.Tensor, device: Any = None) -> bool:
        return False

    library.impl("_pin_memory", pin_memory, "CPU")
    library.impl("is_pinned", is_pinned, "CPU")


def patch_accelerator(ctx: DeviceContext, module: Any, event_class: type) -> None:
    """torch.accelerator.synchronize/memory_* and torch.Event (`event_class`) for the device."""
    import torch.accelerator as accelerator
    import torch.accelerator.memory as accelerator_memory

    delegated = {
        "synchronize": "synchronize",
        "memory_stats": "memory_stats",
        "memory_allocated": "memory_allocated",
        "max_memory_allocated": "max_memory_allocated",
        "memory_reserved": "memory_reserved",
        "max_memory_reserved": "max_memory_reserved",
        "reset_peak_memory_stats": "reset_peak_memory_stats",
        "reset_accumulated_memory_stats": "reset_peak_memory_stats",
        "get_memory_info": "mem_get_info",
    }
    for name, attribute in delegated.items():
        function = _delegate(module, attribute)
        setattr(accelerator, name, function)
        if hasattr(accelerator_memory, name):
            setattr(accelerator_memory, name, function)
    accelerator.empty_cache = accelerator_memory.empty_cache = module.empty_cache
    _keep("Event", torch.Event)
    torch.Event = event_class  # type: ignore[misc, assignment]


def _delegate(module: Any, attribute: str) -> Callable[..., Any]:
    def call(device: Any = None, /) -> Any:
        return getattr(module, attribute)(device)

    call.__name__ = attribute
    return call


def keep_tied_weights() -> None:
    """`module.to(device)` swaps parameters in place instead of making new Parameter objects, so
    tied weights stay tied (PyTorch unties them for PrivateUse1 otherwise; obstacle 8). Only
    conversions swap: `load_state_dict` keeps copying into the parameters, as on any device
    (swapping there fails for modules holding weak references to them, such as nn.LSTM)."""
    future = torch.__future__
    original = torch.nn.Module._apply

    @functools.wraps(original)
    def apply_swapping(module: torch.nn.Module, fn: Any, recurse: bool = True) -> Any:
        if future.get_swap_module_params_on_conversion():
            return original(module, fn, recurse)
        future.set_swap_module_params_on_conversion(True)
        try:
            return original(module, fn, recurse)
        finally:
            future.set_swap_module_params_on_conversion(False)

    torch.nn.Module._apply = apply_swapping  # type: ignore[method-assign]


def apply_all(ctx: DeviceContext, module: Any, event_class: type) -> None:
    """Apply every patch of this module."""
    patch_printing(ctx)
    patch_storages(ctx)
    register_checkpoint_location(ctx)
    patch_pinned_memory()
    patch_accelerator(ctx, module, event_class)
    keep_tied_weights()
