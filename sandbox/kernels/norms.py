"""layer_norm and rms_norm over the trailing axes, forward and backward, in float32.

Both work on `x` viewed as (rows, features) where features are the normalized trailing axes;
statistics come back per row, as PyTorch's native_layer_norm returns them."""

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray


def _as_rows(x: AnyArray, normalized_ndim: int) -> FloatArray:
    features = int(np.prod(x.shape[x.ndim - normalized_ndim :], dtype=np.int64))
    return np.asarray(x, dtype=np.float32).reshape(-1, features)


def layer_norm(
    x: AnyArray,
    normalized_ndim: int,
    weight: AnyArray | None = None,
    bias: AnyArray | None = None,
    eps: float = 1e-5,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """`(y, mean, rstd)`: y = (x - mean) * rstd * weight + bias, mean/rstd of shape (rows,)."""
    rows = _as_rows(x, normalized_ndim)
    mean = rows.mean(axis=1, dtype=np.float32)
    centered = rows - mean[:, None]
    var = np.einsum("ij,ij->i", centered, centered) / np.float32(rows.shape[1])
    rstd = 1.0 / np.sqrt(var + np.float32(eps), dtype=np.float32)
    centered *= rstd[:, None]
    if weight is not None:
        centered *= np.asarray(weight, dtype=np.float32).reshape(-1)
    if bias is not None:
        centered += np.asarray(bias, dtype=np.float32).reshape(-1)
    return centered.reshape(x.shape), mean, rstd.astype(np.float32, copy=False)


def layer_norm_backward(
    grad: AnyArray,
    x: AnyArray,
    mean: AnyArray,
    rstd: AnyArray,
    normalized_ndim: int,
    weight: AnyArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """`(grad_x, grad_weight, grad_bias)` of layer_norm from the saved per-row mean and rstd."""
    rows = _as_rows(x, normalized_ndim)
    grad_rows = _as_rows(grad, normalized_ndim)
    scale = np.asarray(rstd, dtype=np.float32).reshape(-1, 1)
    xhat = (rows - np.asarray(mean, dtype=np.float32).reshape(-1, 1)) * scale
    grad_bias = grad_rows.sum(axis=0)
    grad_weight = np.einsum("ij,ij->j", grad_rows, xhat)
    if weight is not None:
        dxhat = grad_rows * np.asarray(weight, dtype=np.float32).reshape(-1)
    else:
        dxhat = grad_rows.copy()
    features = np.float32(rows.shape[1])
    mean_dxhat = dxhat.sum(axis=1, keepdims=True) / features
    mean_dxhat_xhat = np.einsum("ij,ij->i", dxhat, xhat)[:, None] / features
    dxhat -= mean_dxhat
    xhat *= mean_dxhat_xhat
    dxhat -= xhat
    dxhat *= scale
    return dxhat.reshape(x.shape), grad_weight, grad_bias


def rms_norm(
    x: AnyArray, normalized_ndim: int, weight: AnyArray | None = None, eps: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """`(y, rstd)`: y = x * rsqrt(mean(x^2) + eps) * weight; eps defaults to float32's epsilon."""
    rows = _as_rows(x, normalized_ndim)
    eps_value = np.float32(np.finfo(np.float32).eps if eps is None else eps)
    mean_square = np.einsum("ij,ij->i", rows, rows) / np.float32(rows.shape[1])
    rstd = (1.0 / np.sqrt(mean_square + eps_value)).astype(np.float32, copy=False)
    out = rows * rstd[:, None]
    if weight is not None:
        out *= np.asarray(weight, dtype=np.float32).reshape(-1)
    return out.reshape(x.shape), rstd


def rms_norm_backward(
    grad: AnyArray,
    x: AnyArray,
    rstd: AnyArray,
    normalized_ndim: int,
    weight: AnyArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """`(grad_x, grad_weight)` of rms_norm from the saved per-row rstd."""
    rows = _as_rows(x, normalized_ndim)
    grad_rows = _as_rows(grad, normalized_ndim)
    scale = np.asarray(rstd, dtype=np.float32).reshape(-1, 1)
    xhat = rows * scale
    grad_weight = np.einsum("ij,ij->j", grad_rows, xhat)
    if weight is not None:
        dxhat = grad_rows * np.asarray(weight, dtype=np.float32).reshape(-1)
    else:
        dxhat = grad_rows.copy()
    mean_dxhat_xhat = np.einsum("ij,ij->i", dxhat, xhat)[:, None] / np.float32(rows.shape[1])
    xhat *= mean_dxhat_xhat
    dxhat -= xhat
    dxhat *= scale
    return dxhat.reshape(x.shape), grad_weight
