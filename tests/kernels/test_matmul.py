import numpy as np
import pytest
import torch

from sandbox.kernels import matmul as mm
from tests.kernels.helpers import as_numpy, check, make, precision, torch_grads


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_mm_forward_backward_with_transposed_operand(dtype: str) -> None:
    a = make(6, 5, dtype=dtype)
    b = make(7, 5, dtype=dtype, seed=1)  # used transposed: a non-contiguous operand
    out = mm.matmul(as_numpy(a), as_numpy(b).T, precision=precision(dtype))
    check(out, a @ b.t(), dtype)
    grad = make(6, 7, dtype=dtype, seed=2).detach()
    ga, gb = mm.matmul_backward(
        as_numpy(grad), as_numpy(a), as_numpy(b).T, precision=precision(dtype)
    )
    ta, tb = torch_grads(lambda x, y: x @ y.t(), [a, b], grad)
    check(ga, ta, dtype)
    check(gb.T, tb, dtype)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_batched_matmul_broadcasts_and_handles_strided_batches(dtype: str) -> None:
    a = make(3, 4, 6, 5, dtype=dtype)
    b = make(1, 4, 5, 2, dtype=dtype, seed=1)
    check(mm.matmul(as_numpy(a), as_numpy(b), precision=precision(dtype)), a @ b, dtype)
    # a permuted batch whose matrices are neither row- nor column-contiguous
    c = make(5, 3, 4, dtype=dtype, seed=3)
    strided = as_numpy(c)[:, ::2, :].transpose(0, 2, 1)[:, ::1, :]
    t_strided = c[:, ::2, :].transpose(1, 2)
    d = make(5, 2, 3, dtype=dtype, seed=4)
    check(mm.matmul(strided, as_numpy(d), precision=precision(dtype)), t_strided @ d, dtype)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_addmm_and_baddbmm_with_scalars(dtype: str) -> None:
    bias = make(7, dtype=dtype)
    a, b = make(4, 3, dtype=dtype, seed=1), make(3, 7, dtype=dtype, seed=2)
    ours = mm.addmm(
        as_numpy(bias), as_numpy(a), as_numpy(b), beta=0.5, alpha=2.0, precision=precision(dtype)
    )
    check(ours, torch.addmm(bias, a, b, beta=0.5, alpha=2.0), dtype, scale=2.0)
    base = make(2, 4, 7, dtype=dtype, seed=3)
    ba, bb = make(2, 4, 3, dtype=dtype, seed=4), make(2, 3, 7, dtype=dtype, seed=5)
    ours = mm.addmm(as_numpy(base), as_numpy(ba), as_numpy(bb), precision=precision(dtype))
    check(ours, torch.baddbmm(base, ba, bb), dtype, scale=2.0)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_linear_forward_backward(dtype: str) -> None:
    x = make(2, 3, 8, dtype=dtype)
    w = make(5, 8, dtype=dtype, seed=1)
    b = make(5, dtype=dtype, seed=2)
    out = mm.linear(as_numpy(x), as_numpy(w), as_numpy(b), precision=precision(dtype))
    check(out, torch.nn.functional.linear(x, w, b), dtype, scale=2.0)
    grad = make(2, 3, 5, dtype=dtype, seed=3).detach()
    gx, gw, gb = mm.linear_backward(
        as_numpy(grad), as_numpy(x), as_numpy(w), precision=precision(dtype)
    )
    tx, tw, tb = torch_grads(torch.nn.functional.linear, [x, w, b], grad)
    check(gx, tx, dtype, scale=2.0)
    check(gw, tw, dtype, scale=2.0)
    check(gb, tb, dtype, scale=2.0)


def test_blas_ready_keeps_transposes_and_copies_only_odd_strides() -> None:
    base = np.zeros((4, 6), np.float32)
    assert mm.blas_ready(base.T) is not None
    assert np.shares_memory(mm.blas_ready(base.T), base)
    odd = base[:, ::2]
    assert not np.shares_memory(mm.blas_ready(odd), base)
