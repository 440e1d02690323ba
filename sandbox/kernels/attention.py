"""Scaled dot-product attention as a tiled online-softmax ("flash") algorithm, forward and backward.

Shapes follow torch.nn.functional.scaled_dot_product_attention: q (..., L, E), k (..., S, E),
v (..., S, Ev); leading axes broadcast (a size-1 axis in k/v serves grouped-query attention).
Queries and keys are processed in tiles; each query tile keeps a running max `m`, a running
denominator `l` and an unnormalised accumulator, so the full (L, S) score matrix is never built.
`causal=True` masks key j > query i (top-left aligned, as PyTorch); `mask` is boolean (True =
attend) or additive float, broadcastable to (..., L, S). The forward returns the log-sum-exp per
query, which the backward uses to recompute probabilities tile by tile."""

import math
from collections.abc import Iterator

import numpy as np

from sandbox.kernels.matmul import blas_ready
from sandbox.kernels.precision import AnyArray, FloatArray, Precision, round_to

DEFAULT_BLOCK = 256


def _tiles(length: int, block: int) -> Iterator[tuple[int, int]]:
    for start in range(0, length, block):
        yield start, min(start + block, length)


def _scores(
    q_tile: FloatArray,
    k_tile: FloatArray,
    scale: float,
    mask: AnyArray | None,
    causal: bool,
    rows: tuple[int, int],
    cols: tuple[int, int],
) -> FloatArray:
    """Masked, scaled scores of one (query tile, key tile) pair."""
    scores = np.matmul(q_tile, np.swapaxes(k_tile, -1, -2))
    scores *= np.float32(scale)
    if mask is not None:
        block = mask[..., rows[0] : rows[1], cols[0] : cols[1]]
        if block.dtype == np.bool_:
            scores = np.where(block, scores, np.float32(-np.inf))
        else:
            scores += block
    if causal and cols[1] - 1 > rows[0]:
        above = np.arange(cols[0], cols[1])[None, :] > np.arange(rows[0], rows[1])[:, None]
        scores = np.where(above, np.float32(-np.inf), scores)
    return scores.astype(np.float32, copy=False)


def _prepare(
    q: AnyArray, k: AnyArray, v: AnyArray, mask: AnyArray | None, precision: Precision
) -> tuple[FloatArray, FloatArray, FloatArray, AnyArray | None, tuple[int, ...]]:
    query = round_to(q, precision)
    key = round_to(k, precision)
    value = round_to(v, precision)
    batch = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    full_mask = None
    if mask is not None:
        mask_array = np.asarray(mask)
        if mask_array.dtype != np.bool_:
            mask_array = mask_array.astype(np.float32, copy=False)
        full_mask = np.broadcast_to(mask_array, (*batch, query.shape[-2], key.shape[-2]))
    return query, key, value, full_mask, batch


def flash_attention(
    q: AnyArray,
    k: AnyArray,
    v: AnyArray,
    *,
    mask: AnyArray | None = None,
    causal: bool = False,
    scale: float | None = None,
    block_q: int = DEFAULT_BLOCK,
    block_k: int = DEFAULT_BLOCK,
    precision: Precision = "float32",
) -> tuple[FloatArray, FloatArray]:
    """`(out, lse)`: softmax(q k^T * scale + mask) v, and the per-query log-sum-exp.

    Rows whose keys are all masked give 0 (as PyTorch's safe softmax) and lse = +inf."""
    query, key, value, full_mask, batch = _prepare(q, k, v, mask, precision)
    length, keys = query.shape[-2], key.shape[-2]
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    out = np.zeros((*batch, length, value.shape[-1]), np.float32)
    lse = np.empty((*batch, length), np.float32)
    for rows in _tiles(length, block_q):
        q_tile = blas_ready(query[..., rows[0] : rows[1], :])
        peak = np.full((*batch, rows[1] - rows[0]), -np.inf, np.float32)
        denom = np.zeros_like(peak)
        acc = np.zeros((*batch, rows[1] - rows[0], value.shape[-1]), np.float32)
        for cols in _tiles(keys, block_k):
            if causal and cols[0] > rows[1] - 1:
                break
            scores = _scores(
                q_tile, key[..., cols[0] : cols[1], :], factor, full_mask, causal, rows, cols
            )
            new_peak = np.maximum(peak, scores.max(axis=-1))
            safe_peak = np.where(np.isneginf(new_peak), np.float32(0), new_peak)
            scores -= safe_peak[..., None]
            np.exp(scores, out=scores)
            correction = np.exp(peak - safe_peak)
            denom *= correction
            denom += scores.sum(axis=-1)
            acc *= correction[..., None]
            # the probabilities enter the second matmul in the input precision, as in
            # FlashAttention-2 and on bf16 matrix units; the row sums stay in float32
            probs = scores if precision == "float32" else round_to(scores, precision)
            acc += np.matmul(probs, blas_ready(value[..., cols[0] : cols[1], :]))
            peak = new_peak
        empty = denom == 0
        acc /= np.where(empty, np.float32(1), denom)[..., None]
        out[..., rows[0] : rows[1], :] = acc
        with np.errstate(divide="ignore"):
            lse[..., rows[0] : rows[1]] = np.where(
                empty, np.float32(np.inf), np.where(np.isneginf(peak), 0, peak) + np.log(denom)
            )
    return (round_to(out, precision) if precision != "float32" else out), lse


def _sum_to_shape(grad: FloatArray, shape: tuple[int, ...]) -> FloatArray:
    """Sum `grad` over the axes that were broadcast to reach its shape from `shape`."""
    extra = grad.ndim - len(shape)
    summed = grad.sum(axis=tuple(range(extra))) if extra else grad
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and summed.shape[i] != 1)
    return summed.sum(axis=axes, keepdims=True) if axes else summed


def _backward_tile(
    inputs: tuple[FloatArray, ...],
    grads: tuple[FloatArray, FloatArray, FloatArray],
    factor: float,
    mask: AnyArray | None,
    causal: bool,
    rows: tuple[int, int],
    cols: tuple[int, int],
    precision: Precision = "float32",
) -> None:
    """Accumulate one (query tile, key tile) pair's share of dq, dk, dv into `grads`.

    In low precision the probabilities and the score gradients enter their matmuls in the input
    precision (FlashAttention-2's backward); every accumulation stays in float32."""
    query, key, value, grad, lse, delta = inputs
    grad_q, grad_k, grad_v = grads
    q_tile = blas_ready(query[..., rows[0] : rows[1], :])
    g_tile = blas_ready(grad[..., rows[0] : rows[1], :])
    k_tile = blas_ready(key[..., cols[0] : cols[1], :])
    v_tile = blas_ready(value[..., cols[0] : cols[1], :])
    probs = _scores(q_tile, k_tile, factor, mask, causal, rows, cols)
    probs -= lse[..., rows[0] : rows[1], None]
    np.exp(probs, out=probs)
    low = precision != "float32"
    operand = round_to(probs, precision) if low else probs
    grad_v[..., cols[0] : cols[1], :] += np.matmul(np.swapaxes(operand, -1, -2), g_tile)
    dscores = np.matmul(g_tile, np.swapaxes(v_tile, -1, -2))
    dscores -= delta[..., rows[0] : rows[1], None]
    dscores *= probs
    dscores *= np.float32(factor)
    if low:
        dscores = round_to(dscores, precision)
    grad_q[..., rows[0] : rows[1], :] += np.matmul(dscores, k_tile)
    grad_k[..., cols[0] : cols[1], :] += np.matmul(np.swapaxes(dscores, -1, -2), q_tile)


def flash_attention_backward(
    grad_out: AnyArray,
    q: AnyArray,
    k: AnyArray,
    v: AnyArray,
    out: AnyArray,
    lse: AnyArray,
    *,
    mask: AnyArray | None = None,
    causal: bool = False,
    scale: float | None = None,
    block_q: int = DEFAULT_BLOCK,
    block_k: int = DEFAULT_BLOCK,
    precision: Precision = "float32",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """`(grad_q, grad_k, grad_v)` of `flash_attention`, recomputing probabilities per tile."""
    query, key, value, full_mask, batch = _prepare(q, k, v, mask, precision)
    grad = np.asarray(grad_out, dtype=np.float32)
    length, keys = query.shape[-2], key.shape[-2]
    factor = np.float32(1.0 / math.sqrt(query.shape[-1]) if scale is None else scale)
    delta = np.einsum("...ld,...ld->...l", grad, np.asarray(out, dtype=np.float32))
    grad_q = np.zeros((*batch, length, query.shape[-1]), np.float32)
    grad_k = np.zeros((*batch, keys, key.shape[-1]), np.float32)
    grad_v = np.zeros((*batch, keys, value.shape[-1]), np.float32)
    inputs = (query, key, value, grad, np.asarray(lse, np.float32), delta)
    for rows in _tiles(length, block_q):
        for cols in _tiles(keys, block_k):
            if causal and cols[0] > rows[1] - 1:
                break
            _backward_tile(
                inputs,
                (grad_q, grad_k, grad_v),
                float(factor),
                full_mask,
                causal,
                rows,
                cols,
                precision,
            )
    grads = (
        _sum_to_shape(grad_q, query.shape),
        _sum_to_shape(grad_k, key.shape),
        _sum_to_shape(grad_v, value.shape),
    )
    if precision == "float32":
        return grads
    return (
        round_to(grads[0], precision),
        round_to(grads[1], precision),
        round_to(grads[2], precision),
    )
