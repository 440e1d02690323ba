"""Device tensors over NumPy memory, and NumPy views of device tensors.

Storage-centric: each device StorageImpl's data pointer is the data of one NumPy array (held by
a `DeviceBuffer` on the storage's Python object); the TensorImpl's sizes, strides, offset and dtype
are the only metadata. Views are new TensorImpls on the same StorageImpl, so aliasing, in-place
writes through views, `data_ptr()` and autograd's CopySlices behave as on any PyTorch device.

bfloat16 data is stored as uint16 bits (NumPy has no bfloat16); `read` widens it to float32 and
`to_storage` rounds back to nearest even."""

import ctypes
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from sandbox.kernels.precision import bf16_bits_from_f32, f32_from_bf16_bits
from sandbox.runtime.device.memory import DeviceBuffer, DeviceMemory

STORAGE_NP: dict[torch.dtype, np.dtype[Any]] = {
    torch.float32: np.dtype(np.float32),
    torch.float64: np.dtype(np.float64),
    torch.float16: np.dtype(np.float16),
    torch.bfloat16: np.dtype(np.uint16),
    torch.int64: np.dtype(np.int64),
    torch.int32: np.dtype(np.int32),
    torch.int16: np.dtype(np.int16),
    torch.int8: np.dtype(np.int8),
    torch.uint8: np.dtype(np.uint8),
    torch.uint16: np.dtype(np.uint16),
    torch.uint32: np.dtype(np.uint32),
    torch.uint64: np.dtype(np.uint64),
    torch.bool: np.dtype(np.bool_),
    torch.complex64: np.dtype(np.complex64),
    torch.complex128: np.dtype(np.complex128),
}
"""How each dtype's elements are stored in NumPy (bfloat16 as raw bits)."""

TORCH_OF_NP: dict[np.dtype[Any], torch.dtype] = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.float16): torch.float16,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int16): torch.int16,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.bool_): torch.bool,
    np.dtype(np.complex64): torch.complex64,
    np.dtype(np.complex128): torch.complex128,
}
REDUCED_FLOATS = (torch.bfloat16, torch.float16)
_CPU_KEYSET = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
_SET_STORAGE = torch.ops.aten.set_.source_Storage_storage_offset._handle


def np_view(t: torch.Tensor) -> np.ndarray:
    """The elements of device tensor `t` as a NumPy view in storage format (no copy)."""
    buffer: DeviceBuffer = t.untyped_storage()._np  # type: ignore[attr-defined]
    dtype = STORAGE_NP[t.dtype]
    item = dtype.itemsize
    strides = t.stride()
    if item != 1:
        strides = tuple([s * item for s in strides])
    # tuple(): NumPy reads a torch.Size through the slow sequence protocol
    return np.ndarray(tuple(t.shape), dtype, buffer.array, t.storage_offset() * item, strides)


def read(t: torch.Tensor) -> np.ndarray:
    """`t` in compute format: float32 for bf16/fp16 (a fresh array), else a view of the storage."""
    view = np_view(t)
    if t.dtype is torch.bfloat16:
        return f32_from_bf16_bits(view)
    if t.dtype is torch.float16:
        return view.astype(np.float32)
    return view


def to_storage(values: Any, dtype: torch.dtype) -> np.ndarray:
    """Computed `values` converted to the storage format of `dtype` (rounding floats to nearest)."""
    if dtype is torch.bfloat16:
        return bf16_bits_from_f32(values)
    return np.asarray(values, dtype=STORAGE_NP[dtype])


def from_storage(values: np.ndarray, dtype: torch.dtype) -> np.ndarray:
    """Storage-format `values` of `dtype` in compute format (the inverse of `to_storage`)."""
    if dtype is torch.bfloat16:
        return f32_from_bf16_bits(values)
    if dtype is torch.float16:
        return values.astype(np.float32)
    return values


def write(t: torch.Tensor, values: Any) -> None:
    """Store computed `values` (broadcast to t's shape) into device tensor `t`, in place."""
    target = np_view(t)
    if t.dtype is torch.bfloat16:
        target[...] = bf16_bits_from_f32(np.broadcast_to(values, target.shape))
    elif t.dtype is torch.float32:
        np.copyto(target, values, casting="unsafe")
    else:
        target[...] = values


def cpu_alias(t: torch.Tensor) -> torch.Tensor:
    """A CPU tensor over the same bytes as device tensor `t` (zero-copy), for the fallback."""
    buffer: DeviceBuffer = t.untyped_storage()._np  # type: ignore[attr-defined]
    alias = torch.empty(0, dtype=t.dtype)
    return alias.set_(buffer.cpu_storage(), t.storage_offset(), t.shape, t.stride())


_BYTE = ctypes.c_byte


def address_of(array: np.ndarray) -> int:
    """The address of `array`'s first byte; through ctypes' buffer view when possible (three times
    faster than `array.ctypes.data`, which only serves the arrays that view refuses)."""
    try:
        return ctypes.addressof(_BYTE.from_buffer(array))  # type: ignore[arg-type]
    except (TypeError, ValueError, BufferError):
        return int(array.ctypes.data)


def contiguous_strides(size: Sequence[int]) -> list[int]:
    """Row-major element strides of `size`."""
    strides = [1] * len(size)
    for axis in range(len(size) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * max(size[axis + 1], 1)
    return strides


def is_dense(array: np.ndarray) -> bool:
    """Whether `array` covers one gap-free block of memory in C or Fortran order."""
    flags = array.flags
    return bool(flags.c_contiguous or flags.f_contiguous)


class Allocator:
    """Creates device storages and tensors, accounting each new buffer in `DeviceMemory`.

    `dtype_guard(dtype, op)` enforces the profile's dtype policy (float64) before anything is
    allocated for `op`."""

    def __init__(
        self,
        device: torch.device,
        memory: DeviceMemory,
        dtype_guard: Callable[[torch.dtype, str], None],
    ) -> None:
        self.device = device
        self.memory = memory
        self.dtype_guard = dtype_guard

    def storage(self, array: np.ndarray, what: str, reserved: bool = False) -> torch.UntypedStorage:
        """A device storage whose memory is dense `array` (adopted, not copied); `reserved` says
        the bytes were already accounted by the caller."""
        nbytes = array.nbytes
        if not reserved:
            self.memory.reserve(nbytes, what)
        storage: torch.UntypedStorage = torch._C._construct_storage_from_data_pointer(  # type: ignore[assignment]
            address_of(array), self.device, nbytes
        )
        storage._np = DeviceBuffer(array, self.memory, nbytes)  # type: ignore[attr-defined]
        return storage

    def alias(
        self,
        storage: torch.UntypedStorage,
        size: Sequence[int],
        stride: Sequence[int],
        offset: int,
        dtype: torch.dtype,
    ) -> torch.Tensor:
        """A new device tensor over `storage` with the given metadata (a view; nothing copied)."""
        tensor = torch._C._acc.create_empty_tensor(tuple(size), dtype)
        return _SET_STORAGE.redispatch_boxed(_CPU_KEYSET, tensor, storage, offset, size, stride)

    def wrap(self, array: np.ndarray, dtype: torch.dtype, what: str) -> torch.Tensor:
        """A device tensor of `dtype` over `array` (storage format), keeping its layout if dense;
        arrays that are not dense or not writable (broadcasts, constants) are copied first."""
        array = np.asarray(array)
        if not (is_dense(array) and array.flags.writeable):
            array = array.copy()
        item = array.itemsize
        stride = [s // item for s in array.strides]
        return self.alias(self.storage(array, what), array.shape, stride, 0, dtype)

    def from_compute(self, values: Any, dtype: torch.dtype, what: str) -> torch.Tensor:
        """A new device tensor holding computed `values` converted to `dtype`."""
        return self.wrap(to_storage(values, dtype), dtype, what)

    def empty(
        self,
        size: Sequence[int],
        dtype: torch.dtype,
        what: str,
        stride: Sequence[int] | None = None,
    ) -> torch.Tensor:
        """An uninitialised device tensor (contiguous unless `stride` is given)."""
        self.dtype_guard(dtype, what)
        np_dtype = STORAGE_NP.get(dtype)
        if np_dtype is None:
            raise TypeError(f"{what}: dtype {dtype} is not supported on {self.device.type}")
        if stride is None:
            stride = contiguous_strides(size)
        extent = 1 + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if all(size) else 0
        self.memory.reserve(extent * np_dtype.itemsize, what)
        try:
            flat = np.empty(extent, np_dtype)
        except MemoryError:
            self.memory.release(extent * np_dtype.itemsize)
            raise
        return self.alias(self.storage(flat, what, reserved=True), size, stride, 0, dtype)
