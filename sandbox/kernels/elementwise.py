"""Elementwise operations with PyTorch semantics on NumPy arrays (float32 compute for floats).

`UNARY` and `BINARY` map aten base names to functions; the runtime picks them by op name, and
each works alone on plain arrays. Where NumPy and PyTorch differ (trunc division, rsqrt, erf,
sign of NaN-free relu) the function here follows PyTorch."""

from collections.abc import Callable

import numpy as np

from sandbox.kernels import activations
from sandbox.kernels.precision import AnyArray

Unary = Callable[[AnyArray], AnyArray]
Binary = Callable[[AnyArray, AnyArray], AnyArray]


def rsqrt(x: AnyArray) -> AnyArray:
    """1 / sqrt(x)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.reciprocal(np.sqrt(x))


def true_divide(a: AnyArray, b: AnyArray) -> AnyArray:
    """a / b in floating point, inf/nan on division by zero without warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(a, b)


def trunc_divide(a: AnyArray, b: AnyArray) -> AnyArray:
    """Division rounded toward zero (`rounding_mode="trunc"`)."""
    if np.issubdtype(np.result_type(a, b), np.integer):
        quotient = np.floor_divide(a, b)
        remainder = np.remainder(a, b)
        return quotient + ((remainder != 0) & ((np.sign(a) * np.sign(b)) < 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(np.true_divide(a, b))


def floor_divide(a: AnyArray, b: AnyArray) -> AnyArray:
    """Division rounded toward -inf (`rounding_mode="floor"`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.issubdtype(np.result_type(a, b), np.integer):
            return np.floor_divide(a, b)
        return np.floor(np.true_divide(a, b))


def power(a: AnyArray, b: AnyArray) -> AnyArray:
    """a ** b; inf/nan without warnings (0 ** negative, negative ** fraction)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(a, b)


def _quiet(fn: Unary) -> Unary:
    def call(x: AnyArray) -> AnyArray:
        with np.errstate(all="ignore"):
            return fn(x)

    call.__doc__ = fn.__doc__
    return call


UNARY: dict[str, Unary] = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": _quiet(np.exp),
    "exp2": _quiet(np.exp2),
    "expm1": _quiet(np.expm1),
    "log": _quiet(np.log),
    "log2": _quiet(np.log2),
    "log10": _quiet(np.log10),
    "log1p": _quiet(np.log1p),
    "sqrt": _quiet(np.sqrt),
    "rsqrt": rsqrt,
    "reciprocal": _quiet(np.reciprocal),
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "sinh": _quiet(np.sinh),
    "cosh": _quiet(np.cosh),
    "asin": _quiet(np.arcsin),
    "acos": _quiet(np.arccos),
    "atan": np.arctan,
    "sigmoid": activations.sigmoid,
    "relu": activations.relu,
    "erf": activations.erf,
    "erfc": activations.erfc,
    "silu": activations.silu,
    "sign": np.sign,
    "sgn": np.sign,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,
    "trunc": np.trunc,
    "square": np.square,
    "bitwise_not": np.invert,
    "logical_not": np.logical_not,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "isneginf": np.isneginf,
    "isposinf": np.isposinf,
}

BINARY: dict[str, Binary] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": true_divide,
    "div_trunc": trunc_divide,
    "div_floor": floor_divide,
    "pow": power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "fmax": np.fmax,
    "fmin": np.fmin,
    "remainder": np.remainder,
    "fmod": np.fmod,
    "atan2": np.arctan2,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
}


def lerp(start: AnyArray, end: AnyArray, weight: AnyArray | float) -> AnyArray:
    """start + weight * (end - start), with PyTorch's formula switch at |weight| >= 0.5."""
    w = np.asarray(weight, dtype=np.float32)
    diff = np.subtract(end, start, dtype=np.float32)
    return np.where(np.abs(w) < 0.5, start + w * diff, end - diff * (1 - w)).astype(np.float32)


def addcmul(base: AnyArray, t1: AnyArray, t2: AnyArray, value: float = 1.0) -> AnyArray:
    """base + value * t1 * t2."""
    return base + np.float32(value) * np.multiply(t1, t2, dtype=np.float32)


def addcdiv(base: AnyArray, t1: AnyArray, t2: AnyArray, value: float = 1.0) -> AnyArray:
    """base + value * t1 / t2."""
    return base + np.float32(value) * true_divide(t1, t2)


def where(condition: AnyArray, a: AnyArray, b: AnyArray) -> AnyArray:
    """a where condition else b."""
    return np.where(condition, a, b)


def clamp(x: AnyArray, low: AnyArray | float | None, high: AnyArray | float | None) -> AnyArray:
    """min(max(x, low), high); NaN propagates as in PyTorch (np.maximum/np.minimum do)."""
    out = np.asarray(x)
    if low is not None:
        out = np.maximum(out, low)
    if high is not None:
        out = np.minimum(out, high)
    return out
