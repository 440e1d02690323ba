"""Native memory and metadata ops: allocation, copies and transfers, views (metadata only),
set_/resize_, fill, scalar reads. Everything else builds on these."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from sandbox.runtime.device.context import DeviceContext, device_count
from sandbox.runtime.device.tensors import (
    STORAGE_NP,
    Allocator,
    contiguous_strides,
    cpu_alias,
    np_view,
    read,
    to_storage,
    write,
)

_CPU_KEYSET = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
aten = torch.ops.aten


def _channels_last_strides(size: Sequence[int]) -> list[int]:
    _, c, h, w = size
    return [h * w * c, 1, w * c, c]


def _format_strides(t: torch.Tensor, memory_format: torch.memory_format | None) -> list[int] | None:
    """Strides of a copy of `t` in `memory_format` (None: row-major)."""
    if memory_format is torch.channels_last and t.dim() == 4:
        return _channels_last_strides(t.shape)
    if memory_format in (None, torch.preserve_format):
        return _layout_strides(t)
    return None


def _layout_strides(t: torch.Tensor) -> list[int] | None:
    """Strides that preserve `t`'s layout when it is dense (non-overlapping, no gaps), else None."""
    if t.is_contiguous():
        return None
    order = sorted(range(t.dim()), key=lambda axis: (t.stride(axis), -axis), reverse=True)
    strides = [0] * t.dim()
    step = 1
    for axis in reversed(order):
        strides[axis] = step
        step *= max(t.shape[axis], 1)
    return strides if strides == list(t.stride()) else None


class CoreOps:
    """Kernels for allocation, copy, views and scalar reads on one device."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.ctx = ctx
        self.alloc: Allocator = ctx.allocator
        self.device_type = ctx.device.type

    def check_index(self, device: torch.device | None) -> None:
        """Raise for `tpu:N` beyond the emulated device count (PyTorch's wording)."""
        if device is not None and device.index is not None and device.index >= device_count():
            raise RuntimeError(
                f"{device.type}:{device.index}: invalid device ordinal; this process sees "
                f"{device_count()} emulated {device.type} device(s) (index 0"
                f"{' to ' + str(device_count() - 1) if device_count() > 1 else ''})"
            )

    def empty(
        self,
        size: Sequence[int],
        *,
        dtype: torch.dtype | None = None,
        layout: Any = None,
        device: torch.device | None = None,
        pin_memory: bool | None = None,
        memory_format: torch.memory_format | None = None,
    ) -> torch.Tensor:
        self.check_index(device)
        stride = None
        if memory_format is torch.channels_last and len(size) == 4:
            stride = _channels_last_strides(size)
        kind = dtype or torch.get_default_dtype()
        return self.alloc.empty(size, kind, "aten::empty.memory_format", stride)

    def empty_strided(
        self,
        size: Sequence[int],
        stride: Sequence[int],
        *,
        dtype: torch.dtype | None = None,
        layout: Any = None,
        device: torch.device | None = None,
        pin_memory: bool | None = None,
    ) -> torch.Tensor:
        self.check_index(device)
        kind = dtype or torch.get_default_dtype()
        return self.alloc.empty(size, kind, "aten::empty_strided", stride)

    def copy_(
        self, dst: torch.Tensor, src: torch.Tensor, non_blocking: bool = False
    ) -> torch.Tensor:
        """dst.copy_(src) for any mix of device and CPU tensors (transfers are counted)."""
        device_type = self.device_type
        if dst.device.type == device_type:
            if src.device.type == device_type:
                self._device_copy(dst, src)
            else:
                self.ctx.metrics.count_transfer("host_to_device", src.nbytes)
                cpu_alias(dst).copy_(src)
        else:
            self.ctx.metrics.count_transfer("device_to_host", src.nbytes)
            self.ctx.metrics.count_host_sync()
            dst.copy_(cpu_alias(src))
        return dst

    def copy_from(
        self, src: torch.Tensor, dst: torch.Tensor, non_blocking: bool = False
    ) -> torch.Tensor:
        return self.copy_(dst, src, non_blocking)

    def copy_from_and_resize(self, src: torch.Tensor, dst: torch.Tensor) -> torch.Tensor:
        if dst.shape != src.shape:
            dst.resize_(src.shape)
        return self.copy_(dst, src)

    @staticmethod
    def _device_copy(dst: torch.Tensor, src: torch.Tensor) -> None:
        if src.dtype is dst.dtype and src.dtype in STORAGE_NP:
            np.copyto(np_view(dst), np_view(src))
        else:
            write(dst, read(src))

    def to_copy(
        self,
        src: torch.Tensor,
        *,
        dtype: torch.dtype | None = None,
        layout: Any = None,
        device: torch.device | None = None,
        pin_memory: bool | None = None,
        non_blocking: bool = False,
        memory_format: torch.memory_format | None = None,
    ) -> torch.Tensor:
        """`.to(dtype/device)`: host to device, device to host, or a converted device copy."""
        kind = dtype or src.dtype
        if src.device.type != self.device_type:
            return self._host_to_device(src, kind, device, memory_format)
        if device is not None and device.type != self.device_type:
            self.ctx.metrics.count_transfer("device_to_host", src.nbytes)
            self.ctx.metrics.count_host_sync()
            return cpu_alias(src).to(
                dtype=kind,
                device=device,
                copy=True,
                memory_format=memory_format or torch.preserve_format,
            )
        self.check_index(device)
        self.ctx.policy.guard(kind, "aten::_to_copy")
        out = self.alloc.empty(
            src.shape, kind, "aten::_to_copy", _format_strides(src, memory_format)
        )
        self._device_copy(out, src)
        return out

    def _host_to_device(
        self,
        src: torch.Tensor,
        kind: torch.dtype,
        device: torch.device | None,
        memory_format: torch.memory_format | None,
    ) -> torch.Tensor:
        self.check_index(device)
        out = self.alloc.empty(
            src.shape, kind, "aten::_to_copy", _format_strides(src, memory_format)
        )
        self.ctx.metrics.count_transfer("host_to_device", src.nbytes)
        cpu_alias(out).copy_(src)
        return out

    def clone(
        self, src: torch.Tensor, *, memory_format: torch.memory_format | None = None
    ) -> torch.Tensor:
        out = self.alloc.empty(
            src.shape, src.dtype, "aten::clone", _format_strides(src, memory_format)
        )
        np.copyto(np_view(out), np_view(src))
        return out

    def fill_(self, t: torch.Tensor, value: Any) -> torch.Tensor:
        if isinstance(value, torch.Tensor):
            value = read(value).item() if value.device.type == self.device_type else value.item()
        np_view(t)[...] = to_storage(value, t.dtype)
        return t

    def zero_(self, t: torch.Tensor) -> torch.Tensor:
        np_view(t)[...] = 0
        return t

    def local_scalar_dense(self, t: torch.Tensor) -> Any:
        """`.item()`: a host sync."""
        self.ctx.metrics.count_host_sync()
        self.ctx.metrics.count_transfer("device_to_host", t.element_size())
        return read(t).item()

    def resize_(
        self, t: torch.Tensor, size: Sequence[int], memory_format: torch.memory_format | None = None
    ) -> torch.Tensor:
        """Resize in place; storage that is too small is replaced by a larger copy."""
        strides = contiguous_strides(size)
        needed = (t.storage_offset() + int(np.prod(size, dtype=np.int64))) * t.element_size()
        storage = t.untyped_storage()
        if needed > storage.nbytes():
            grown = np.zeros(needed, np.uint8)
            old = storage._np.array.ravel(order="K").view(np.uint8)  # type: ignore[attr-defined]
            grown[: old.size] = old
            storage = self.alloc.storage(grown, "aten::resize_")
        return aten.set_.source_Storage_storage_offset.redispatch(
            _CPU_KEYSET, t, storage, t.storage_offset(), size, strides
        )


def _record_stream(t: torch.Tensor, stream: Any) -> None:
    """Nothing to record: the emulated device has one synchronous stream."""


def _cpu_redispatch(op: torch._ops.OpOverload) -> Any:
    """A kernel that runs the CPU kernel of a metadata-only op (views, set_) on the device tensor:
    it only builds TensorImpl metadata over the same storage."""

    handle = op._handle

    def kernel(*args: Any, **kwargs: Any) -> Any:
        return handle.redispatch_boxed(_CPU_KEYSET, *args, **kwargs)

    return kernel


METADATA_OPS = (
    "view",
    "as_strided",
    "_reshape_alias",
    "unfold",
    "set_.source_Storage",
    "set_.source_Storage_storage_offset",
    "set_.source_Tensor",
    "set_",
    "view_as_real",
    "view_as_complex",
)


def register(ctx: DeviceContext) -> None:
    """Register the core kernels on `ctx.registry`."""
    ops = CoreOps(ctx)
    reg = ctx.registry
    reg.impl("empty.memory_format", ops.empty)
    reg.impl("empty_strided", ops.empty_strided)
    reg.impl("copy_", ops.copy_, mixed_devices=True)
    reg.impl("_copy_from", ops.copy_from, mixed_devices=True)
    reg.impl("_copy_from_and_resize", ops.copy_from_and_resize, mixed_devices=True)
    reg.impl("_to_copy", ops.to_copy, mixed_devices=True)
    reg.impl("clone", ops.clone)
    reg.impl(["fill_.Scalar", "fill_.Tensor"], ops.fill_)
    reg.impl("zero_", ops.zero_)
    reg.impl("_local_scalar_dense", ops.local_scalar_dense)
    reg.impl("resize_", ops.resize_)
    reg.impl("record_stream", _record_stream, mixed_devices=True)
    for name in METADATA_OPS:
        op = getattr(aten, name.split(".")[0])
        overload = getattr(op, name.split(".")[1] if "." in name else "default")
        reg.impl(name, _cpu_redispatch(overload), mixed_devices=name.startswith("set_"))
