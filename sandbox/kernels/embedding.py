"""Embedding lookup and its gradient (a scatter-add of rows)."""

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray


def embedding(weight: AnyArray, indices: AnyArray) -> AnyArray:
    """Rows of `weight` picked by integer `indices`: shape indices.shape + (dim,)."""
    return np.take(weight, np.asarray(indices, dtype=np.int64), axis=0)


def embedding_backward(
    grad: AnyArray,
    indices: AnyArray,
    num_weights: int,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
) -> FloatArray:
    """Gradient w.r.t. the embedding table: rows of `grad` summed per index.

    Rows at `padding_idx` (when >= 0) get no gradient; with `scale_grad_by_freq` each row's sum is
    divided by how often its index occurs in the batch."""
    flat_indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    dim = grad.shape[-1]
    flat_grad = np.asarray(grad, dtype=np.float32).reshape(-1, dim)
    out = np.zeros((num_weights, dim), dtype=np.float32)
    if flat_indices.size == 0:
        return out
    order = np.argsort(flat_indices, kind="stable")
    sorted_indices = flat_indices[order]
    starts = np.flatnonzero(np.r_[True, sorted_indices[1:] != sorted_indices[:-1]])
    sums = np.add.reduceat(flat_grad[order], starts, axis=0)
    unique = sorted_indices[starts]
    if scale_grad_by_freq:
        counts = np.diff(np.r_[starts, flat_indices.size]).astype(np.float32)
        sums /= counts[:, None]
    out[unique] = sums
    if padding_idx >= 0:
        out[padding_idx] = 0.0
    return out
