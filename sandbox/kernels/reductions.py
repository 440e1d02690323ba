"""Reductions with PyTorch semantics: sum/mean/prod, amax/amin, var/std with Bessel correction,
logsumexp, vector norms, argmax/argmin, any/all, cumsum. Float inputs accumulate in float32
(NumPy's pairwise summation), integer and bool sums in int64, as PyTorch does."""

from collections.abc import Sequence

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray

Axes = int | Sequence[int] | None


def _axes(axis: Axes) -> int | tuple[int, ...] | None:
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(axis) if len(axis) else None


def _accumulator(x: AnyArray) -> type[np.generic]:
    kind = np.asarray(x).dtype.kind
    return np.int64 if kind in "biu" else np.float32


def sum_(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> AnyArray:
    """Sum (int64 for integer/bool inputs)."""
    return np.sum(x, axis=_axes(axis), keepdims=keepdims, dtype=_accumulator(x))


def mean(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> FloatArray:
    """Arithmetic mean in float32."""
    return np.mean(x, axis=_axes(axis), keepdims=keepdims, dtype=np.float32)


def prod(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> AnyArray:
    """Product (int64 for integer/bool inputs)."""
    return np.prod(x, axis=_axes(axis), keepdims=keepdims, dtype=_accumulator(x))


def amax(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> AnyArray:
    """Maximum, propagating NaN."""
    return np.max(x, axis=_axes(axis), keepdims=keepdims)


def amin(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> AnyArray:
    """Minimum, propagating NaN."""
    return np.min(x, axis=_axes(axis), keepdims=keepdims)


def var(
    x: AnyArray, axis: Axes = None, correction: float = 1.0, keepdims: bool = False
) -> FloatArray:
    """Variance with `correction` (1 = Bessel); inf/nan when there are too few elements."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.var(x, axis=_axes(axis), ddof=correction, keepdims=keepdims, dtype=np.float32)


def std(
    x: AnyArray, axis: Axes = None, correction: float = 1.0, keepdims: bool = False
) -> FloatArray:
    """Standard deviation with `correction`."""
    return np.sqrt(var(x, axis, correction, keepdims))


def logsumexp(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> FloatArray:
    """log(sum(exp(x))) computed stably; -inf rows give -inf."""
    values = np.asarray(x, dtype=np.float32)
    peak = np.max(values, axis=_axes(axis), keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0).astype(np.float32)
    with np.errstate(divide="ignore"):
        total = np.log(np.sum(np.exp(values - peak), axis=_axes(axis), keepdims=True))
    out = total + peak
    return out if keepdims else np.squeeze(out, axis=_axes(axis))


def vector_norm(
    x: AnyArray, ord: float = 2.0, axis: Axes = None, keepdims: bool = False
) -> FloatArray:
    """p-norm over `axis` (all elements when None): inf, -inf, 0 (count of non-zeros) or p."""
    values = np.abs(np.asarray(x, dtype=np.float32))
    ax = _axes(axis)
    if ord == np.inf:
        return np.max(values, axis=ax, keepdims=keepdims)
    if ord == -np.inf:
        return np.min(values, axis=ax, keepdims=keepdims)
    if ord == 0:
        return np.sum(values != 0, axis=ax, keepdims=keepdims, dtype=np.float32)
    if ord == 2:
        return np.sqrt(np.sum(values * values, axis=ax, keepdims=keepdims, dtype=np.float32))
    if ord == 1:
        return np.sum(values, axis=ax, keepdims=keepdims, dtype=np.float32)
    powered = np.sum(values**ord, axis=ax, keepdims=keepdims, dtype=np.float32)
    return np.asarray(powered ** (1.0 / ord), dtype=np.float32)


def argmax(x: AnyArray, axis: int | None = None, keepdims: bool = False) -> AnyArray:
    """Index of the first maximum (int64), NaN counting as the maximum."""
    return np.argmax(x, axis=axis, keepdims=keepdims).astype(np.int64)


def argmin(x: AnyArray, axis: int | None = None, keepdims: bool = False) -> AnyArray:
    """Index of the first minimum (int64), NaN counting as the minimum."""
    return np.argmin(x, axis=axis, keepdims=keepdims).astype(np.int64)


def any_(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> AnyArray:
    """True where any element is non-zero."""
    return np.any(x, axis=_axes(axis), keepdims=keepdims)


def all_(x: AnyArray, axis: Axes = None, keepdims: bool = False) -> AnyArray:
    """True where all elements are non-zero."""
    return np.all(x, axis=_axes(axis), keepdims=keepdims)


def cumsum(x: AnyArray, axis: int) -> AnyArray:
    """Running sum along `axis` (int64 for integer/bool inputs)."""
    return np.cumsum(x, axis=axis, dtype=_accumulator(x))
