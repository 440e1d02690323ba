import numpy as np
import pytest
import torch
from torch.nn import functional as nnf

from sandbox.kernels import norms, softmax
from tests.kernels.helpers import as_numpy, check, make, torch_grads

DTYPES = ["float32", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [-1, 1])
def test_softmax_and_log_softmax_forward_backward_on_strided_input(dtype: str, dim: int) -> None:
    base = make(4, 6, 5, dtype=dtype, scale=3.0)
    x = base.transpose(0, 2)  # non-contiguous (5, 6, 4)
    grad = make(5, 6, 4, dtype=dtype, seed=1).detach()
    for ours_fwd, ours_bwd, theirs in (
        (softmax.softmax, softmax.softmax_backward, nnf.softmax),
        (softmax.log_softmax, softmax.log_softmax_backward, nnf.log_softmax),
    ):
        out = ours_fwd(as_numpy(x), dim)
        reference = theirs(x.float(), dim).to(x.dtype)
        check(out, reference, dtype)
        (t_grad,) = torch_grads(lambda v, f=theirs: f(v.transpose(0, 2), dim), [base], grad)
        g = ours_bwd(as_numpy(grad), out, dim)
        check(g, t_grad.transpose(0, 2), dtype)


def test_softmax_of_fully_masked_row_is_nan_like_torch() -> None:
    row = np.full((1, 3), -np.inf, np.float32)
    assert np.isnan(softmax.softmax(row)).all()
    assert torch.isnan(torch.softmax(torch.from_numpy(row), -1)).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_forward_backward(dtype: str) -> None:
    x = make(3, 4, 8, dtype=dtype, scale=2.0)
    w = make(8, dtype=dtype, seed=1)
    b = make(8, dtype=dtype, seed=2)
    y, mean, rstd = norms.layer_norm(as_numpy(x), 1, as_numpy(w), as_numpy(b), 1e-5)
    t_y, t_mean, t_rstd = torch.native_layer_norm(x.float(), [8], w.float(), b.float(), 1e-5)
    check(y, t_y.to(x.dtype), dtype, scale=2.0)
    check(mean, t_mean.reshape(-1), "float32")
    check(rstd, t_rstd.reshape(-1), "float32")
    grad = make(3, 4, 8, dtype=dtype, seed=3).detach()
    gx, gw, gb = norms.layer_norm_backward(as_numpy(grad), as_numpy(x), mean, rstd, 1, as_numpy(w))
    tx, tw, tb = torch_grads(lambda a, c, d: nnf.layer_norm(a, [8], c, d), [x, w, b], grad)
    check(gx, tx, dtype, scale=2.0)
    check(gw, tw, dtype, scale=4.0)
    check(gb, tb, dtype, scale=4.0)


def test_layer_norm_over_two_axes_without_affine_on_broadcast_view() -> None:
    row = make(1, 6, 4, dtype="float32")
    x = row.expand(3, 6, 4)  # broadcast (stride 0) input
    y, mean, rstd = norms.layer_norm(as_numpy(x), 2, None, None, 1e-6)
    check(y, nnf.layer_norm(x, [6, 4], eps=1e-6), "float32")
    grad = make(3, 6, 4, dtype="float32", seed=5).detach()
    gx, _, _ = norms.layer_norm_backward(as_numpy(grad), as_numpy(x), mean, rstd, 2, None)
    x_leaf = x.detach().clone().requires_grad_(True)
    (t_gx,) = torch_grads(lambda a: nnf.layer_norm(a, [6, 4], eps=1e-6), [x_leaf], grad)
    check(gx, t_gx, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_forward_backward(dtype: str) -> None:
    x = make(5, 16, dtype=dtype, scale=2.0)
    w = make(16, dtype=dtype, seed=1)
    y, rstd = norms.rms_norm(as_numpy(x), 1, as_numpy(w), 1e-6)
    check(y, nnf.rms_norm(x.float(), [16], w.float(), 1e-6).to(x.dtype), dtype, scale=2.0)
    grad = make(5, 16, dtype=dtype, seed=3).detach()
    gx, gw = norms.rms_norm_backward(as_numpy(grad), as_numpy(x), rstd, 1, as_numpy(w))
    tx, tw = torch_grads(
        lambda a, c: nnf.rms_norm(a.float(), [16], c.float(), 1e-6), [x, w], grad.float()
    )
    check(gx, tx, dtype, scale=2.0)
    check(gw, tw, dtype, scale=4.0)
