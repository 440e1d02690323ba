"""Activation functions and their gradients in float32: erf/erfc, gelu (exact and tanh), silu,
sigmoid, relu. NumPy has no erf: `erfc`/`erf` use the Chebyshev fit of Numerical Recipes
(fractional error below 1.2e-7 everywhere); gelu uses the cheaper Abramowitz & Stegun fit that
PyTorch's own vectorised CPU kernel uses, so both round alike."""

import math

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray

_ERFC_COEFFS = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
    -1.26551223,
)
# erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), innermost coefficient first
_ERF_SERIES = tuple((-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(7, -1, -1))
_TWO_OVER_SQRT_PI = np.float32(2.0 / math.sqrt(math.pi))
_INV_SQRT2 = np.float32(1.0 / math.sqrt(2.0))
_INV_SQRT_2PI = np.float32(1.0 / math.sqrt(2.0 * math.pi))
_TANH_SCALE = np.float32(math.sqrt(2.0 / math.pi))
_TANH_CUBIC = np.float32(0.044715)


def erfc(x: AnyArray) -> FloatArray:
    """Complementary error function, relative error < 1.2e-7."""
    values = np.asarray(x, dtype=np.float32)
    z = np.abs(values)
    t = z * np.float32(0.5)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = np.full_like(t, _ERFC_COEFFS[0])
    for coeff in _ERFC_COEFFS[1:]:
        poly *= t
        poly += np.float32(coeff)
    z *= z
    np.subtract(poly, z, out=poly)
    np.exp(poly, out=poly)
    poly *= t
    # erfc(-a) = 2 - erfc(a); selected arithmetically (np.where on unpredictable signs is ~10x
    # slower), adding exactly 0 where x >= 0 so the small right tail keeps its precision
    flip = 2.0 - 2.0 * poly
    flip *= values < 0
    poly += flip
    return poly


def erf(x: AnyArray) -> FloatArray:
    """Error function: a Taylor series below |x| = 0.5 (where 1 - erfc(x) would cancel), else
    1 - erfc(x)."""
    values = np.asarray(x, dtype=np.float32)
    square = values * values
    series = np.full_like(square, _ERF_SERIES[0])
    for coeff in _ERF_SERIES[1:]:
        series *= square
        series += np.float32(coeff)
    series *= values
    series *= _TWO_OVER_SQRT_PI
    return select(np.abs(values) < 0.5, series, 1.0 - erfc(values))


# Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7): the erf PyTorch's vectorised CPU kernels
# use, so gelu matches PyTorch's rounding behaviour (including its left-tail cancellation).
_AS_P = np.float32(0.3275911)
_AS_COEFFS = tuple(np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736))
_AS_LAST = np.float32(0.254829592)


def _half_gelu_cdf(u: FloatArray) -> tuple[FloatArray, FloatArray]:
    """`(1 + erf(u), exp(-u^2))` for u = x / sqrt(2), in a few in-place passes."""
    a = np.abs(u)
    t = a * _AS_P
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _AS_COEFFS[0]
    for coeff in _AS_COEFFS[1:]:
        poly += coeff
        poly *= t
    poly += _AS_LAST
    poly *= t
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    np.copysign(poly, u, out=poly)
    poly += 1.0
    return poly, a


def gelu(x: AnyArray, approximate: str = "none") -> FloatArray:
    """GELU: x * Phi(x) exactly (`approximate="none"`) or with the tanh formula (`"tanh"`)."""
    values = np.asarray(x, dtype=np.float32)
    if approximate == "tanh":
        inner = values * values
        inner *= _TANH_CUBIC * values
        inner += values
        inner *= _TANH_SCALE
        np.tanh(inner, out=inner)
        inner += 1.0
        inner *= values
        inner *= 0.5
        return inner
    cdf, _ = _half_gelu_cdf(values * _INV_SQRT2)
    cdf *= values
    cdf *= 0.5
    return cdf


def gelu_backward(grad: AnyArray, x: AnyArray, approximate: str = "none") -> FloatArray:
    """Gradient of `gelu` w.r.t. its input, times `grad`."""
    values = np.asarray(x, dtype=np.float32)
    if approximate == "tanh":
        square = values * values
        inner = _TANH_SCALE * (values + _TANH_CUBIC * square * values)
        tanh_inner = np.tanh(inner)
        left = 0.5 * (1.0 + tanh_inner)
        right = 0.5 * values * (1.0 - tanh_inner * tanh_inner)
        right *= _TANH_SCALE * (1.0 + 3.0 * _TANH_CUBIC * square)
        left += right
        left *= grad
        return left.astype(np.float32, copy=False)
    cdf, density = _half_gelu_cdf(values * _INV_SQRT2)
    cdf *= 0.5
    density *= _INV_SQRT_2PI
    density *= values
    cdf += density
    cdf *= grad
    return cdf


def sigmoid(x: AnyArray) -> FloatArray:
    """1 / (1 + exp(-x)), without overflow warnings for very negative x."""
    values = np.asarray(x, dtype=np.float32)
    with np.errstate(over="ignore"):
        out = np.exp(-values)
    out += 1.0
    np.reciprocal(out, out=out)
    return out


def silu(x: AnyArray) -> FloatArray:
    """x * sigmoid(x)."""
    out = sigmoid(x)
    out *= x
    return out


def silu_backward(grad: AnyArray, x: AnyArray) -> FloatArray:
    """Gradient of silu: grad * s * (1 + x * (1 - s)) with s = sigmoid(x)."""
    values = np.asarray(x, dtype=np.float32)
    sig = sigmoid(values)
    out = 1.0 - sig
    out *= values
    out += 1.0
    out *= sig
    out *= grad
    return out.astype(np.float32, copy=False)


def relu(x: AnyArray) -> FloatArray:
    """max(x, 0), propagating NaN."""
    return np.maximum(np.asarray(x, dtype=np.float32), np.float32(0))


def threshold_backward(grad: AnyArray, out: AnyArray, threshold: float = 0.0) -> FloatArray:
    """Gradient of relu/threshold: grad where the output is above the threshold, else exactly 0
    (also where grad is NaN, as PyTorch)."""
    return select(np.asarray(out) > threshold, grad, np.zeros((), np.float32))


def select(condition: AnyArray, a: AnyArray, b: AnyArray) -> FloatArray:
    """float32 `a` where `condition` else `b`, by bit masks: exact (NaN and -0.0 included) and free
    of the branch mispredictions that make np.where slow on irregular masks."""
    shape = np.broadcast_shapes(np.shape(condition), np.shape(a), np.shape(b))
    keep = np.broadcast_to(np.asarray(condition, dtype=np.bool_), shape).astype(np.uint32)
    keep *= np.uint32(0xFFFFFFFF)
    left = np.broadcast_to(np.asarray(a, dtype=np.float32), shape).view(np.uint32) & keep
    keep ^= np.uint32(0xFFFFFFFF)
    right = np.broadcast_to(np.asarray(b, dtype=np.float32), shape).view(np.uint32) & keep
    left |= right
    return left.view(np.float32)
