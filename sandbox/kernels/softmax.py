"""softmax and log_softmax along one axis, forward and backward, in float32."""

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray


def _shifted(x: AnyArray, axis: int) -> FloatArray:
    """`x - max(x)` along `axis` (a fresh float32 array); rows that are all -inf stay -inf."""
    values = np.asarray(x, dtype=np.float32)
    peak = values.max(axis=axis, keepdims=True)
    peak[~np.isfinite(peak)] = 0.0
    return np.subtract(values, peak, dtype=np.float32)


def softmax(x: AnyArray, axis: int = -1) -> FloatArray:
    """exp(x) / sum(exp(x)) along `axis`, computed stably."""
    out = _shifted(x, axis)
    np.exp(out, out=out)
    with np.errstate(invalid="ignore"):  # all -inf rows give NaN, as in PyTorch
        out /= out.sum(axis=axis, keepdims=True)
    return out


def log_softmax(x: AnyArray, axis: int = -1) -> FloatArray:
    """x - logsumexp(x) along `axis`, computed stably."""
    out = _shifted(x, axis)
    total = np.exp(out).sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out -= np.log(total)
    return out


def softmax_backward(grad: AnyArray, out: AnyArray, axis: int = -1) -> FloatArray:
    """Gradient of softmax given its output `out`: out * (grad - sum(grad * out))."""
    product = np.multiply(grad, out, dtype=np.float32)
    gx = product - out * product.sum(axis=axis, keepdims=True)
    return np.asarray(gx, dtype=np.float32)


def log_softmax_backward(grad: AnyArray, out: AnyArray, axis: int = -1) -> FloatArray:
    """Gradient of log_softmax given its output `out`: grad - exp(out) * sum(grad)."""
    total = np.asarray(grad, dtype=np.float32).sum(axis=axis, keepdims=True)
    gx = np.exp(out, dtype=np.float32)
    gx *= total
    np.subtract(grad, gx, out=gx, dtype=np.float32)
    return gx
