"""Activation functions and their gradients in float32: erf/erfc, gelu (exact and tanh), silu,
sigmoid, relu. NumPy has no erf, so erfc uses the Chebyshev fit of Numerical Recipes (fractional
error below 1.2e-7 everywhere), which keeps gelu's left tail accurate in relative terms."""

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
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.full_like(t, _ERFC_COEFFS[0])
    for coeff in _ERFC_COEFFS[1:]:
        poly *= t
        poly += np.float32(coeff)
    z *= z
    np.subtract(poly, z, out=poly)
    np.exp(poly, out=poly)
    poly *= t
    return np.where(values >= 0, poly, 2.0 - poly).astype(np.float32, copy=False)


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
    return np.where(np.abs(values) < 0.5, series, 1.0 - erfc(values)).astype(np.float32)


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
    out = erfc(values * -_INV_SQRT2)
    out *= values
    out *= 0.5
    return out


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
    cdf = erfc(values * -_INV_SQRT2)
    cdf *= 0.5
    pdf = values * values
    pdf *= -0.5
    np.exp(pdf, out=pdf)
    pdf *= _INV_SQRT_2PI
    pdf *= values
    cdf += pdf
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
    values = np.asarray(x, dtype=np.float32)
    return np.where(values > 0, values, np.where(np.isnan(values), values, 0)).astype(np.float32)


def threshold_backward(grad: AnyArray, out: AnyArray, threshold: float = 0.0) -> FloatArray:
    """Gradient of relu/threshold: grad where the output is above the threshold, else 0."""
    return np.where(np.asarray(out) > threshold, grad, 0).astype(np.float32, copy=False)
