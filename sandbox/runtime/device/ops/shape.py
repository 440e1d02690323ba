"""Native data-movement kernels: cat, where, masked_fill, tril/triu, arange, index_select, gather,
scatter_add, advanced indexing (index, index_put_)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import COMPUTE_NP, Results, as_compute, operand, result_type
from sandbox.runtime.device.tensors import np_view, read, to_storage, write


def _index_array(index: torch.Tensor | None) -> Any:
    """An index tensor (device or CPU) as a NumPy index; None selects everything."""
    if index is None:
        return slice(None)
    if index.is_cpu:
        return index.numpy()
    return np_view(index)


def _index_tuple(indices: Sequence[torch.Tensor | None]) -> tuple[Any, ...]:
    """PyTorch's advanced-indexing list as a NumPy index (same semantics for ints and bools)."""
    return tuple(_index_array(i) for i in indices)


class ShapeOps:
    """Kernels of the data-movement ops."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.results = Results(ctx.allocator)

    def cat(self, tensors: Sequence[torch.Tensor], dim: int = 0, **kw: Any) -> torch.Tensor:
        parts = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)] or list(tensors)
        dtype = result_type(*parts) if len(parts) > 1 else parts[0].dtype
        axis = dim % max(parts[0].dim(), 1)
        if all(p.dtype is dtype for p in parts):
            values = np.concatenate([np_view(p) for p in parts], axis=axis)
            return self.results.stored(values, dtype, "aten::cat", kw.get("out"))
        values = np.concatenate([as_compute(read(p), dtype) for p in parts], axis=axis)
        return self.results.emit(values, dtype, "aten::cat", kw.get("out"))

    def where(self, condition: torch.Tensor, a: Any, b: Any, **kw: Any) -> torch.Tensor:
        dtype = result_type(a, b)
        values = np.where(
            operand(condition), as_compute(operand(a), dtype), as_compute(operand(b), dtype)
        )
        return self.results.emit(values, dtype, "aten::where", kw.get("out"))

    def masked_fill_(self, target: torch.Tensor, mask: torch.Tensor, value: Any) -> torch.Tensor:
        fill = operand(value)
        view = np_view(target)
        np.copyto(
            view, to_storage(fill, target.dtype), where=np.broadcast_to(operand(mask), view.shape)
        )
        return target

    def triangle(self, upper: bool, op: str) -> Any:
        def kernel(x: torch.Tensor, diagonal: int = 0, **kw: Any) -> torch.Tensor:
            data = np_view(x)
            values = np.triu(data, diagonal) if upper else np.tril(data, diagonal)
            return self.results.stored(values, x.dtype, op, kw.get("out"))

        return kernel

    def triangle_(self, upper: bool) -> Any:
        def kernel(x: torch.Tensor, diagonal: int = 0) -> torch.Tensor:
            view = np_view(x)
            view[...] = np.triu(view, diagonal) if upper else np.tril(view, diagonal)
            return x

        return kernel

    def arange(self, start: Any, end: Any, step: Any = 1, *, out: torch.Tensor) -> torch.Tensor:
        values = np.arange(start, end, step, dtype=COMPUTE_NP[out.dtype])
        return self.results.into(out, values)

    def index_select(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, **kw: Any
    ) -> torch.Tensor:
        values = np.take(np_view(x), _index_array(index), axis=dim % max(x.dim(), 1))
        return self.results.stored(values, x.dtype, "aten::index_select", kw.get("out"))

    def gather(self, x: torch.Tensor, dim: int, index: torch.Tensor, **kw: Any) -> torch.Tensor:
        values = np.take_along_axis(np_view(x), _index_array(index), axis=dim % max(x.dim(), 1))
        return self.results.stored(values, x.dtype, "aten::gather", kw.get("out"))

    def scatter_add_(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, src: torch.Tensor
    ) -> torch.Tensor:
        values = read(x).copy() if x.dtype is not torch.float32 else np_view(x)
        idx = _index_array(index)
        axis = dim % max(x.dim(), 1)
        grid = list(np.indices(idx.shape, sparse=True))
        grid[axis] = idx
        source = read(src)[tuple(slice(0, n) for n in idx.shape)]
        np.add.at(values, tuple(grid), source)
        if values is not np_view(x):
            write(x, values)
        return x

    def scatter_add(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, src: torch.Tensor
    ) -> torch.Tensor:
        return self.scatter_add_(x.clone(), dim, index, src)

    def flip(self, x: torch.Tensor, dims: Sequence[int]) -> torch.Tensor:
        values = np.flip(np_view(x), tuple(d % max(x.dim(), 1) for d in dims))
        return self.results.stored(np.ascontiguousarray(values), x.dtype, "aten::flip", None)

    def scatter_(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, src: Any, **kw: Any
    ) -> torch.Tensor:
        target = np_view(x)
        idx = _index_array(index)
        source = np_view(src) if isinstance(src, torch.Tensor) else to_storage(src, x.dtype)
        if isinstance(src, torch.Tensor):
            source = source[tuple(slice(0, n) for n in idx.shape)]
        np.put_along_axis(target, idx, source, axis=dim % max(x.dim(), 1))
        return x

    def scatter(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, src: Any, **kw: Any
    ) -> torch.Tensor:
        out = kw.pop("out", None)
        result = self.scatter_(x.clone(), dim, index, src)
        return result if out is None else out.copy_(result)

    def index_add_(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, source: torch.Tensor, **kw: Any
    ) -> torch.Tensor:
        data = np_view(x) if x.dtype is torch.float32 else read(x).copy()
        values = operand(source)
        alpha = kw.get("alpha", 1)
        if alpha != 1:
            values = values * alpha
        axis = dim % max(x.dim(), 1)
        np.add.at(np.moveaxis(data, axis, 0), _index_array(index), np.moveaxis(values, axis, 0))
        if x.dtype is not torch.float32:
            write(x, data)
        return x

    def index_add(
        self, x: torch.Tensor, dim: int, index: torch.Tensor, source: torch.Tensor, **kw: Any
    ) -> torch.Tensor:
        out = kw.pop("out", None)
        result = self.index_add_(x.clone(), dim, index, source, **kw)
        return result if out is None else out.copy_(result)

    def index(self, x: torch.Tensor, indices: Sequence[torch.Tensor | None]) -> torch.Tensor:
        values = np_view(x)[_index_tuple(indices)]
        return self.results.stored(np.ascontiguousarray(values), x.dtype, "aten::index", None)

    def index_put_(
        self,
        x: torch.Tensor,
        indices: Sequence[torch.Tensor | None],
        values: torch.Tensor,
        accumulate: bool = False,
        unsafe: bool = False,
    ) -> torch.Tensor:
        key = _index_tuple(indices)
        if not accumulate:
            np_view(x)[key] = to_storage(operand(values), x.dtype)
            return x
        data = np_view(x) if x.dtype is torch.float32 else read(x).copy()
        np.add.at(data, key, operand(values))
        if x.dtype is not torch.float32:
            write(x, data)
        return x

    def index_put(
        self, x: torch.Tensor, indices: Any, values: torch.Tensor, accumulate: bool = False
    ) -> torch.Tensor:
        return self.index_put_(x.clone(), indices, values, accumulate)


def register(ctx: DeviceContext) -> None:
    """Register the data-movement kernels."""
    ops = ShapeOps(ctx)
    reg = ctx.registry
    reg.impl(["cat", "cat.out"], ops.cat)
    reg.impl(
        ["where.self", "where.self_out", "where.ScalarOther", "where.ScalarSelf", "where.Scalar"],
        ops.where,
    )
    reg.impl(["masked_fill_.Scalar", "masked_fill_.Tensor"], ops.masked_fill_)
    reg.impl(["tril", "tril.out"], ops.triangle(False, "aten::tril"))
    reg.impl(["triu", "triu.out"], ops.triangle(True, "aten::triu"))
    reg.impl("tril_", ops.triangle_(False))
    reg.impl("triu_", ops.triangle_(True))
    reg.impl("arange.start_out", ops.arange)
    reg.impl(["index_select", "index_select.out"], ops.index_select)
    reg.impl(["gather", "gather.out"], ops.gather)
    reg.impl("scatter_add_", ops.scatter_add_)
    reg.impl("scatter_add", ops.scatter_add)
    reg.impl("flip", ops.flip)
    reg.impl(["scatter_.src", "scatter_.value"], ops.scatter_)
    reg.impl(["scatter.src", "scatter.value", "scatter.src_out", "scatter.value_out"], ops.scatter)
    reg.impl("index_add_", ops.index_add_)
    reg.impl(["index_add", "index_add.out"], ops.index_add)
    reg.impl("index.Tensor", ops.index, mixed_devices=True)
    reg.impl(["index_put_", "_index_put_impl_"], ops.index_put_, mixed_devices=True)
    reg.impl("index_put", ops.index_put, mixed_devices=True)
