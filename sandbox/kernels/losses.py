"""Negative log-likelihood and cross-entropy losses over class axis 1 (or the only axis for 1-D
inputs), forward and backward, with class weights, ignore_index and mean/sum/none reduction, as
PyTorch defines them."""

from typing import Literal

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray
from sandbox.kernels.softmax import log_softmax, softmax

Reduction = Literal["none", "mean", "sum"]


def _class_last(x: AnyArray) -> FloatArray:
    """(N, C, d1, ...) -> (N*d1*..., C); (C,) -> (1, C)."""
    values = np.asarray(x, dtype=np.float32)
    if values.ndim == 1:
        return values[None, :]
    return np.moveaxis(values, 1, -1).reshape(-1, values.shape[1])


def _pick_weights(
    target: AnyArray, classes: int, weight: AnyArray | None, ignore_index: int
) -> tuple[np.ndarray, FloatArray]:
    """Flat targets (ignored ones mapped to class 0) and the per-sample weight (0 if ignored)."""
    flat = np.asarray(target, dtype=np.int64).reshape(-1)
    keep = flat != ignore_index
    safe = np.where(keep, flat, 0)
    if np.any((safe < 0) | (safe >= classes)):
        bad = int(safe[(safe < 0) | (safe >= classes)][0])
        raise IndexError(f"Target {bad} is out of bounds for {classes} classes.")
    per_sample = np.ones(flat.shape, np.float32) if weight is None else np.asarray(weight)[safe]
    return safe, np.where(keep, per_sample, 0).astype(np.float32)


def nll_loss(
    log_probs: AnyArray,
    target: AnyArray,
    weight: AnyArray | None = None,
    reduction: Reduction = "mean",
    ignore_index: int = -100,
) -> tuple[FloatArray, FloatArray]:
    """`(loss, total_weight)`; loss has the target's shape for reduction "none" (total_weight is
    then 0, as PyTorch leaves it), else is 0-d."""
    rows = _class_last(log_probs)
    safe, sample_weight = _pick_weights(target, rows.shape[1], weight, ignore_index)
    picked = -rows[np.arange(rows.shape[0]), safe] * sample_weight
    if reduction == "none":
        return picked.reshape(np.shape(target)), np.zeros((), np.float32)
    total_weight = np.float32(sample_weight.sum())
    total = np.float32(picked.sum())
    if reduction == "mean":
        total = np.float32(total / total_weight)
    return np.asarray(total, np.float32), np.asarray(total_weight, np.float32)


def nll_loss_backward(
    grad: AnyArray,
    log_probs: AnyArray,
    target: AnyArray,
    weight: AnyArray | None = None,
    reduction: Reduction = "mean",
    ignore_index: int = -100,
    total_weight: float | None = None,
) -> FloatArray:
    """Gradient of nll_loss w.r.t. `log_probs` (same shape as `log_probs`)."""
    values = np.asarray(log_probs)
    classes = values.shape[1] if values.ndim > 1 else values.shape[0]
    safe, sample_weight = _pick_weights(target, classes, weight, ignore_index)
    if reduction == "none":
        scale = -sample_weight * np.asarray(grad, np.float32).reshape(-1)
    else:
        denom = sample_weight.sum() if total_weight is None else total_weight
        factor = np.float32(grad) / np.float32(denom) if reduction == "mean" else np.float32(grad)
        scale = -sample_weight * factor
    rows = np.zeros((safe.size, classes), np.float32)
    rows[np.arange(safe.size), safe] = scale
    if values.ndim == 1:
        return rows.reshape(classes)
    moved = rows.reshape((values.shape[0], *values.shape[2:], classes))
    return np.ascontiguousarray(np.moveaxis(moved, -1, 1))


def cross_entropy(
    logits: AnyArray,
    target: AnyArray,
    weight: AnyArray | None = None,
    reduction: Reduction = "mean",
    ignore_index: int = -100,
) -> FloatArray:
    """log_softmax over the class axis followed by nll_loss (class-index targets)."""
    axis = 1 if np.ndim(logits) > 1 else 0
    loss, _ = nll_loss(log_softmax(logits, axis), target, weight, reduction, ignore_index)
    return loss


def cross_entropy_backward(
    grad: AnyArray,
    logits: AnyArray,
    target: AnyArray,
    weight: AnyArray | None = None,
    reduction: Reduction = "mean",
    ignore_index: int = -100,
) -> FloatArray:
    """Gradient of `cross_entropy` w.r.t. the logits: softmax * sum(g) - g over classes."""
    axis = 1 if np.ndim(logits) > 1 else 0
    log_probs = log_softmax(logits, axis)
    grad_log_probs = nll_loss_backward(grad, log_probs, target, weight, reduction, ignore_index)
    probs = softmax(logits, axis)
    return grad_log_probs - probs * grad_log_probs.sum(axis=axis, keepdims=True)
