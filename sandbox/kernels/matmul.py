"""The matmul family (mm, bmm, matmul, addmm, baddbmm, linear) with float32 accumulation.

With `precision="bfloat16"` the inputs are rounded to bfloat16 first and the result is rounded to
bfloat16 at the end, as a TPU MXU does for bf16 operands (bf16 x bf16 products, f32 accumulate)."""

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray, Precision, round_to


def blas_ready(x: AnyArray) -> AnyArray:
    """`x`, copied to C order only when its last two axes cannot be handed to BLAS as they are.

    NumPy's batched matmul falls back to a slow element loop for matrices that are neither row nor
    column contiguous; 2-D transposes and broadcast batch axes (stride 0) are fine as they are."""
    if x.ndim < 2:
        return x
    item = x.itemsize
    rows, cols = x.shape[-2], x.shape[-1]
    row_stride, col_stride = x.strides[-2], x.strides[-1]
    if (col_stride == item and row_stride >= max(cols, 1) * item) or (
        row_stride == item and col_stride >= max(rows, 1) * item
    ):
        return x
    return np.ascontiguousarray(x)


def matmul(a: AnyArray, b: AnyArray, *, precision: Precision = "float32") -> FloatArray:
    """`a @ b` with NumPy broadcasting rules, float32 accumulation, rounded to `precision`."""
    left = blas_ready(round_to(a, precision))
    right = blas_ready(round_to(b, precision))
    out = np.matmul(left, right)
    return round_to(out, precision) if precision != "float32" else out


def addmm(
    bias: AnyArray,
    a: AnyArray,
    b: AnyArray,
    *,
    beta: float = 1.0,
    alpha: float = 1.0,
    precision: Precision = "float32",
) -> FloatArray:
    """`beta * bias + alpha * (a @ b)` (also baddbmm for 3-D operands), one rounding at the end."""
    product = np.matmul(blas_ready(round_to(a, precision)), blas_ready(round_to(b, precision)))
    if alpha != 1.0:
        product *= alpha
    if beta != 0.0:
        shift = round_to(bias, precision)
        product += shift if beta == 1.0 else beta * shift
    return round_to(product, precision) if precision != "float32" else product


def linear(
    x: AnyArray, weight: AnyArray, bias: AnyArray | None = None, *, precision: Precision = "float32"
) -> FloatArray:
    """`x @ weight.T + bias` for `x` of shape (..., in) and `weight` of shape (out, in)."""
    if bias is None:
        return matmul(x, weight.T, precision=precision)
    return addmm(bias, x, weight.T, precision=precision)


def matmul_backward(
    grad: AnyArray, a: AnyArray, b: AnyArray, *, precision: Precision = "float32"
) -> tuple[FloatArray, FloatArray]:
    """Gradients of `a @ b` for 2-D or equally batched 3-D operands: `(grad @ b.T, a.T @ grad)`."""
    grad_a = matmul(grad, np.swapaxes(b, -1, -2), precision=precision)
    grad_b = matmul(np.swapaxes(a, -1, -2), grad, precision=precision)
    return grad_a, grad_b


def linear_backward(
    grad: AnyArray, x: AnyArray, weight: AnyArray, *, precision: Precision = "float32"
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Gradients of `linear` w.r.t. input, weight and bias, for `x` of shape (..., in)."""
    flat_grad = grad.reshape(-1, grad.shape[-1])
    flat_x = x.reshape(-1, x.shape[-1])
    grad_x = matmul(grad, weight, precision=precision)
    grad_w = matmul(flat_grad.T, flat_x, precision=precision)
    grad_b = flat_grad.astype(np.float32, copy=False).sum(axis=0)
    return grad_x, grad_w, round_to(grad_b, precision)
