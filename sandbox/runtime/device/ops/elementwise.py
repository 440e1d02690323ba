"""Native elementwise ops: unary and binary arithmetic, comparisons and logical ops, each in its
functional, in-place and `out=` overloads, with PyTorch's type promotion. Compute is float32 for
reduced floats (rounded once on store), as PyTorch's CPU kernels do."""

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from sandbox.kernels import elementwise as ew
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import (
    Results,
    as_compute,
    cast_check,
    operand,
    result_type,
)
from sandbox.runtime.device.tensors import np_view, read

UNARY_FLOAT = (
    *("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal"),
    *("sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "sigmoid"),
    *("erf", "erfc", "silu"),
)
"""Unary ops whose result is floating (integer inputs give the default float dtype)."""
UNARY_SAME = ("neg", "abs", "sign", "sgn", "floor", "ceil", "round", "trunc", "bitwise_not", "relu")
"""Unary ops that keep the input dtype."""
UNARY_BOOL = ("logical_not", "isnan", "isinf", "isneginf", "isposinf", "isfinite")
"""Unary ops with a bool result."""

ARITHMETIC = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "remainder": "remainder",
    "fmod": "fmod",
    "maximum": "maximum",
    "minimum": "minimum",
    "pow": "pow",
    "atan2": "atan2",
    "bitwise_and": "bitwise_and",
    "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor",
}
COMPARISON = ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor")
OVERLOADS = (
    *("default", "out", "Tensor", "Scalar", "Scalar_out", "Tensor_out", "Tensor_Tensor"),
    *("Tensor_Scalar", "Tensor_Tensor_out", "Tensor_Scalar_out", "Tensor_mode", "out_mode"),
    "Scalar_mode",
)
"""Overload names of elementwise families (each family uses the ones it has)."""


def _exists(name: str) -> bool:
    base, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, base, None)
    return packet is not None and overload in packet.overloads()


def _variants(base: str, overloads: tuple[str, ...]) -> list[str]:
    """The existing functional/in-place/out overloads of `base` among `overloads`."""
    names = []
    for stem in (base, base + "_"):
        for overload in dict.fromkeys(overloads):
            if _exists(f"{stem}.{overload}"):
                names.append(stem if overload == "default" else f"{stem}.{overload}")
    return names


class Elementwise:
    """Builds the kernels of one elementwise op family."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.results = Results(ctx.allocator)

    def unary(self, name: str, result: str) -> Callable[..., Any]:
        """Kernels of a unary op; `result` is "float", "same" or "bool" (the output dtype)."""
        fn = ew.UNARY[name]
        op_name = f"aten::{name}"
        results = self.results
        fast_ufunc = isinstance(fn, np.ufunc)

        def kernel(self: torch.Tensor, **kwargs: Any) -> torch.Tensor:
            dtype = _unary_dtype(self.dtype, result)
            out = kwargs.get("out")
            if out is None and fast_ufunc and self.dtype is torch.float32:
                return results.new(fn(np_view(self)), dtype, op_name)
            values = fn(as_compute(read(self), dtype))
            return results.new(values, dtype, op_name) if out is None else results.into(out, values)

        def inplace(self: torch.Tensor) -> torch.Tensor:
            cast_check(_unary_dtype(self.dtype, result), self.dtype)
            if fast_ufunc and self.dtype is torch.float32:
                view = np_view(self)
                fn(view, out=view)  # type: ignore[call-arg]
                return self
            return results.inplace(self, fn(as_compute(read(self), self.dtype)))

        kernel.inplace = inplace  # type: ignore[attr-defined]
        return kernel

    def binary(self, name: str, fn: Callable[[Any, Any], Any], kind: str) -> Callable[..., Any]:
        op_name = f"aten::{name}"
        results = self.results
        reverse = name == "rsub"

        def compute(a: Any, b: Any, kwargs: dict[str, Any]) -> tuple[Any, torch.dtype]:
            promoted = result_type(a, b)
            out_dtype = torch.bool if kind == "compare" else promoted
            if kind == "divide" and not promoted.is_floating_point and not promoted.is_complex:
                promoted = out_dtype = torch.get_default_dtype()
            left = as_compute(operand(a), promoted)
            right = as_compute(operand(b), promoted)
            alpha = kwargs.get("alpha", 1)
            if reverse:
                left, right = right, left
            if alpha != 1:
                right = right * as_compute(alpha, promoted)
            mode = kwargs.get("rounding_mode")
            if mode is not None:
                out_dtype = promoted = result_type(a, b)
                left, right = as_compute(operand(a), promoted), as_compute(operand(b), promoted)
                return ew.BINARY["div_" + mode](left, right), out_dtype
            return fn(left, right), out_dtype

        def kernel(a: Any, b: Any, **kwargs: Any) -> torch.Tensor:
            values, dtype = compute(a, b, kwargs)
            out = kwargs.get("out")
            return results.new(values, dtype, op_name) if out is None else results.into(out, values)

        def inplace(a: torch.Tensor, b: Any, **kwargs: Any) -> torch.Tensor:
            values, dtype = compute(a, b, kwargs)
            cast_check(dtype, a.dtype)
            return results.inplace(a, values)

        kernel.inplace = inplace  # type: ignore[attr-defined]
        return kernel


class Ternary:
    """lerp, addcmul, addcdiv and clamp: functional, in-place and out= kernels."""

    def __init__(self, results: Results) -> None:
        self.results = results

    def kernels(self, name: str, compute: Callable[..., Any]) -> Callable[..., Any]:
        """Kernels of `name`, whose values are `compute(*operands, **kwargs)`."""
        results = self.results
        op_name = f"aten::{name}"

        def kernel(a: torch.Tensor, *rest: Any, **kwargs: Any) -> torch.Tensor:
            out = kwargs.pop("out", None)
            dtype = result_type(a, *[r for r in rest if isinstance(r, torch.Tensor)])
            values = compute(
                as_compute(operand(a), dtype), *[_compute_arg(r, dtype) for r in rest], **kwargs
            )
            return results.new(values, dtype, op_name) if out is None else results.into(out, values)

        def inplace(a: torch.Tensor, *rest: Any, **kwargs: Any) -> torch.Tensor:
            dtype = result_type(a, *[r for r in rest if isinstance(r, torch.Tensor)])
            cast_check(dtype, a.dtype)
            values = compute(
                as_compute(operand(a), dtype), *[_compute_arg(r, dtype) for r in rest], **kwargs
            )
            return results.inplace(a, values)

        kernel.inplace = inplace  # type: ignore[attr-defined]
        return kernel


def _compute_arg(value: Any, dtype: torch.dtype) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    return as_compute(operand(value), dtype)


def _addcmul(a: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
    return ew.addcmul(a, t1, t2, value)


def _addcdiv(a: Any, t1: Any, t2: Any, value: Any = 1) -> Any:
    return ew.addcdiv(a, t1, t2, value)


def _unary_dtype(dtype: torch.dtype, result: str) -> torch.dtype:
    if result == "bool":
        return torch.bool
    if result == "float" and not (dtype.is_floating_point or dtype.is_complex):
        return torch.get_default_dtype()
    return dtype


def _register_family(ctx: DeviceContext, base: str, kernel: Callable[..., Any]) -> None:
    for name in _variants(base, OVERLOADS):
        stem = name.split(".")[0]
        chosen = kernel.inplace if stem.endswith("_") else kernel  # type: ignore[attr-defined]
        ctx.registry.impl(name, chosen)


def register(ctx: DeviceContext) -> None:
    """Register the elementwise kernels."""
    family = Elementwise(ctx)
    for names, result in ((UNARY_FLOAT, "float"), (UNARY_SAME, "same"), (UNARY_BOOL, "bool")):
        for name in names:
            _register_family(ctx, name, family.unary(name, result))
    for name, kernel_name in ARITHMETIC.items():
        _register_family(ctx, name, family.binary(name, ew.BINARY[kernel_name], "arithmetic"))
    _register_family(ctx, "rsub", family.binary("rsub", ew.BINARY["sub"], "arithmetic"))
    _register_family(ctx, "div", family.binary("div", ew.BINARY["div"], "divide"))
    for name in COMPARISON:
        _register_family(ctx, name, family.binary(name, ew.BINARY[name], "compare"))
    ternary = Ternary(family.results)
    _register_family(ctx, "lerp", ternary.kernels("lerp", ew.lerp))
    _register_family(ctx, "addcmul", ternary.kernels("addcmul", _addcmul))
    _register_family(ctx, "addcdiv", ternary.kernels("addcdiv", _addcdiv))
    _register_family(ctx, "clamp", ternary.kernels("clamp", ew.clamp))
    _register_family(
        ctx, "clamp_min", ternary.kernels("clamp_min", lambda a, low: ew.clamp(a, low, None))
    )
    _register_family(
        ctx, "clamp_max", ternary.kernels("clamp_max", lambda a, high: ew.clamp(a, None, high))
    )
