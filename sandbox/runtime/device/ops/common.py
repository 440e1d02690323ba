"""Helpers shared by the native kernels: reading operands in compute format, PyTorch's type
promotion, and writing results into new, in-place or `out=` tensors."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from sandbox.runtime.device.tensors import Allocator, from_storage, np_view, read, write

COMPUTE_NP: dict[torch.dtype, type[np.generic]] = {
    torch.float32: np.float32,
    torch.bfloat16: np.float32,
    torch.float16: np.float32,
    torch.float64: np.float64,
    torch.int64: np.int64,
    torch.int32: np.int32,
    torch.int16: np.int16,
    torch.int8: np.int8,
    torch.uint8: np.uint8,
    torch.bool: np.bool_,
    torch.complex64: np.complex64,
    torch.complex128: np.complex128,
}
"""The NumPy dtype each torch dtype is computed in (reduced floats in float32)."""


def operand(value: Any) -> Any:
    """A kernel input in compute format: device tensors read from memory, 0-dim CPU tensors as
    Python scalars, everything else unchanged."""
    if isinstance(value, torch.Tensor):
        if value.is_cpu:
            return value.item()
        return read(value)
    return value


def as_compute(value: Any, dtype: torch.dtype) -> Any:
    """`value` (array or scalar) in the compute dtype of `dtype`."""
    kind = COMPUTE_NP[dtype]
    if isinstance(value, np.ndarray):
        return value if value.dtype == kind else value.astype(kind)
    return kind(value) if not isinstance(value, bool) or kind is np.bool_ else value


def _promote(first: torch.dtype | None, second: torch.dtype) -> torch.dtype:
    return second if first is None else torch.promote_types(first, second)


def _combine(higher: torch.dtype | None, lower: torch.dtype | None) -> torch.dtype | None:
    """c10's combine_categories: a higher-priority class wins unless `lower` is of a higher
    category (bool < integral < floating < complex)."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is torch.bool or lower.is_floating_point:
        return torch.promote_types(higher, lower)
    return higher


def result_type(*values: Any) -> torch.dtype:
    """PyTorch's promoted dtype of tensors and scalars: tensors with dimensions take priority over
    0-dim tensors, which take priority over Python scalars, unless a lower class has a higher
    category (bool < integer < float < complex)."""
    first = values[0]
    if isinstance(first, torch.Tensor) and all(
        isinstance(v, torch.Tensor) and v.dtype is first.dtype for v in values
    ):
        return first.dtype
    dims = zeros = wrapped = None
    for value in values:
        if isinstance(value, torch.Tensor):
            if value.dim():
                dims = _promote(dims, value.dtype)
            else:
                zeros = _promote(zeros, value.dtype)
        elif isinstance(value, bool):
            wrapped = _promote(wrapped, torch.bool)
        elif isinstance(value, int):
            wrapped = _promote(wrapped, torch.int64)
        elif isinstance(value, float):
            wrapped = _promote(wrapped, torch.get_default_dtype())
        elif isinstance(value, complex):
            wrapped = _promote(wrapped, torch.complex64)
    combined = _combine(dims, _combine(zeros, wrapped))
    return combined if combined is not None else torch.get_default_dtype()


def broadcast_check(out: torch.Tensor, shape: Sequence[int]) -> None:
    """PyTorch's error when an in-place result would change the tensor's shape."""
    if tuple(out.shape) != tuple(shape):
        raise RuntimeError(
            f"output with shape {list(out.shape)} doesn't match the broadcast shape {list(shape)}"
        )


def cast_check(result: torch.dtype, out: torch.dtype) -> None:
    """PyTorch's error when a result cannot be stored in the output's dtype."""
    if not torch.can_cast(result, out):
        raise RuntimeError(
            f"result type {_name(result)} can't be cast to the desired output type {_name(out)}"
        )


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.").capitalize().replace("Bfloat16", "BFloat16")


class Results:
    """Writes computed NumPy results to the device."""

    def __init__(self, allocator: Allocator) -> None:
        self.allocator = allocator

    def new(self, values: Any, dtype: torch.dtype, op: str) -> torch.Tensor:
        """A new device tensor holding `values`."""
        return self.allocator.from_compute(np.asarray(values), dtype, op)

    def emit(self, values: Any, dtype: torch.dtype, op: str, out: torch.Tensor | None) -> Any:
        """A new tensor of computed `values`, or `values` stored into `out` when given."""
        if out is None:
            return self.new(values, dtype, op)
        return self.into(out, values)

    def stored(
        self, values: np.ndarray, dtype: torch.dtype, op: str, out: torch.Tensor | None
    ) -> torch.Tensor:
        """Like `emit` for `values` already in `dtype`'s storage format (moved data, no math):
        adopted as the new tensor's memory without conversion."""
        if out is None:
            return self.allocator.wrap(values, dtype, op)
        if out.dtype is dtype and tuple(out.shape) == values.shape:
            np.copyto(np_view(out), values)
            return out
        return self.into(out, from_storage(values, dtype))

    def into(self, out: torch.Tensor, values: Any) -> torch.Tensor:
        """Store `values` in `out` (an `out=` argument), resizing it when the shape differs."""
        shape = np.shape(values)
        if tuple(out.shape) != shape:
            out.resize_(shape)
        write(out, values)
        return out

    def inplace(self, target: torch.Tensor, values: Any) -> torch.Tensor:
        """Store `values` in `target` (an in-place op) after PyTorch's shape check."""
        broadcast_check(target, np.broadcast_shapes(np.shape(values), tuple(target.shape)))
        write(target, values)
        return target
