"""Native reductions: sum, mean, prod, amax/amin, max/min (with indices), argmax/argmin, var/std,
vector norms, any/all, cumsum, logsumexp."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from sandbox.kernels import reductions as red
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import Results, as_compute
from sandbox.runtime.device.tensors import read


def axes(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...] | None:
    """PyTorch dim argument (None or [] meaning all) as NumPy axes."""
    if dim is None:
        return None
    dims = [dim] if isinstance(dim, int) else list(dim)
    if not dims:
        return None
    return tuple(d % max(ndim, 1) for d in dims)


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.").capitalize()


def _accumulating(dtype: torch.dtype, requested: torch.dtype | None) -> torch.dtype:
    """Result dtype of sum/prod/cumsum: the requested one, int64 for integers and bool."""
    if requested is not None:
        return requested
    return torch.int64 if not (dtype.is_floating_point or dtype.is_complex) else dtype


class Reductions:
    """Kernels of the reduction ops."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.results = Results(ctx.allocator)

    def summed(self, fn: Callable[..., Any], op: str) -> Callable[..., Any]:
        def kernel(self_: torch.Tensor, dim: Any = None, keepdim: bool = False, **kw: Any) -> Any:
            dtype = _accumulating(self_.dtype, kw.get("dtype"))
            values = fn(as_compute(read(self_), dtype), axes(dim, self_.dim()), keepdims=keepdim)
            return self.results.emit(values, dtype, op, kw.get("out"))

        return kernel

    def mean(self, self_: torch.Tensor, dim: Any = None, keepdim: bool = False, **kw: Any) -> Any:
        dtype = kw.get("dtype") or self_.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {_dtype_name(self_.dtype)}"
            )
        values = red.mean(as_compute(read(self_), dtype), axes(dim, self_.dim()), keepdim)
        return self.results.emit(values, dtype, "aten::mean", kw.get("out"))

    def extreme(self, fn: Callable[..., Any], op: str) -> Callable[..., Any]:
        def kernel(self_: torch.Tensor, dim: Any = (), keepdim: bool = False, **kw: Any) -> Any:
            values = fn(read(self_), axes(dim, self_.dim()), keepdims=keepdim)
            return self.results.emit(values, self_.dtype, op, kw.get("out"))

        return kernel

    def with_indices(self, largest: bool, op: str) -> Callable[..., Any]:
        def kernel(self_: torch.Tensor, dim: int, keepdim: bool = False) -> Any:
            data = read(self_)
            axis = dim % max(self_.dim(), 1)
            index = (red.argmax if largest else red.argmin)(data, axis, keepdims=True)
            values = np.take_along_axis(data, index, axis=axis)
            if not keepdim:
                values, index = values.squeeze(axis), index.squeeze(axis)
            new = self.results.new
            return new(values, self_.dtype, op), new(index, torch.int64, op)

        return kernel

    def arg(self, largest: bool, op: str) -> Callable[..., Any]:
        def kernel(
            self_: torch.Tensor, dim: int | None = None, keepdim: bool = False, **kw: Any
        ) -> Any:
            data = read(self_)
            fn = red.argmax if largest else red.argmin
            if dim is None:
                index = fn(data.reshape(-1), 0)
                index = index.reshape((1,) * self_.dim()) if keepdim else index
            else:
                index = fn(data, dim % max(self_.dim(), 1), keepdims=keepdim)
            return self.results.emit(index, torch.int64, op, kw.get("out"))

        return kernel

    def spread(self, fn: Callable[..., Any], op: str) -> Callable[..., Any]:
        def kernel(self_: torch.Tensor, dim: Any = None, **kw: Any) -> Any:
            correction = kw.get("correction")
            values = fn(
                read(self_),
                axes(dim, self_.dim()),
                1.0 if correction is None else float(correction),
                kw.get("keepdim", False),
            )
            return self.results.emit(values, self_.dtype, op, kw.get("out"))

        return kernel

    def vector_norm(
        self, self_: torch.Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, **kw: Any
    ) -> Any:
        dtype = kw.get("dtype") or self_.dtype
        values = red.vector_norm(
            as_compute(read(self_), dtype), float(ord), axes(dim, self_.dim()), keepdim
        )
        return self.results.emit(values, dtype, "aten::linalg_vector_norm", kw.get("out"))

    def logical(self, fn: Callable[..., Any], op: str) -> Callable[..., Any]:
        def kernel(self_: torch.Tensor, dim: Any = None, keepdim: bool = False, **kw: Any) -> Any:
            values = fn(read(self_), axes(dim, self_.dim()), keepdims=keepdim)
            dtype = torch.uint8 if self_.dtype is torch.uint8 else torch.bool
            return self.results.emit(values, dtype, op, kw.get("out"))

        return kernel

    def cumsum(self, self_: torch.Tensor, dim: int, **kw: Any) -> Any:
        dtype = _accumulating(self_.dtype, kw.get("dtype"))
        values = (
            red.cumsum(as_compute(read(self_), dtype), dim % max(self_.dim(), 1))
            if self_.dim()
            else read(self_)
        )
        return self.results.emit(values, dtype, "aten::cumsum", kw.get("out"))

    def logsumexp(self, self_: torch.Tensor, dim: Any, keepdim: bool = False, **kw: Any) -> Any:
        dtype = self_.dtype if self_.dtype.is_floating_point else torch.get_default_dtype()
        values = red.logsumexp(as_compute(read(self_), dtype), axes(dim, self_.dim()), keepdim)
        return self.results.emit(values, dtype, "aten::logsumexp", kw.get("out"))


def register(ctx: DeviceContext) -> None:
    """Register the reduction kernels."""
    ops = Reductions(ctx)
    reg = ctx.registry
    reg.impl(["sum", "sum.dim_IntList", "sum.IntList_out"], ops.summed(red.sum_, "aten::sum"))
    reg.impl(["prod", "prod.dim_int", "prod.int_out"], ops.summed(red.prod, "aten::prod"))
    reg.impl(["mean", "mean.dim", "mean.out"], ops.mean)
    reg.impl(["amax", "amax.out"], ops.extreme(red.amax, "aten::amax"))
    reg.impl(["amin", "amin.out"], ops.extreme(red.amin, "aten::amin"))
    reg.impl("max", ops.extreme(red.amax, "aten::max"))
    reg.impl("min", ops.extreme(red.amin, "aten::min"))
    reg.impl("max.dim", ops.with_indices(True, "aten::max.dim"))
    reg.impl("min.dim", ops.with_indices(False, "aten::min.dim"))
    reg.impl(["argmax", "argmax.out"], ops.arg(True, "aten::argmax"))
    reg.impl(["argmin", "argmin.out"], ops.arg(False, "aten::argmin"))
    reg.impl(["var.correction", "var.correction_out"], ops.spread(red.var, "aten::var"))
    reg.impl(["std.correction", "std.correction_out"], ops.spread(red.std, "aten::std"))
    reg.impl(["linalg_vector_norm", "linalg_vector_norm.out"], ops.vector_norm)
    reg.impl(
        ["any", "any.dim", "any.dims", "any.out", "any.dims_out"],
        ops.logical(red.any_, "aten::any"),
    )
    reg.impl(
        ["all", "all.dim", "all.dims", "all.out", "all.dims_out"],
        ops.logical(red.all_, "aten::all"),
    )
    reg.impl(["cumsum", "cumsum.out"], ops.cumsum)
    reg.impl(["logsumexp", "logsumexp.out"], ops.logsumexp)
