import numpy as np
import pytest
import torch
from torch.nn import functional as nnf

from sandbox.kernels import conv, optim
from tests.kernels.helpers import as_numpy, check, make, precision, torch_grads

DTYPES = ["float32", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("stride", "padding", "dilation", "groups"), [(1, 0, 1, 1), (2, 1, 1, 2), (1, 2, 2, 1)]
)
def test_conv2d_forward_backward(
    dtype: str, stride: int, padding: int, dilation: int, groups: int
) -> None:
    x = make(2, 4, 9, 8, dtype=dtype)
    w = make(6, 4 // groups, 3, 3, dtype=dtype, seed=1)
    b = make(6, dtype=dtype, seed=2)
    geo = conv.ConvGeometry.of(stride, padding, dilation, groups)
    out = conv.conv2d(as_numpy(x), as_numpy(w), as_numpy(b), geo, precision=precision(dtype))

    def fn(a: torch.Tensor, c: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
        return nnf.conv2d(a, c, d, stride, padding, dilation, groups)

    check(out, fn(x, w, b), dtype, scale=4.0)
    grad = make(*out.shape, dtype=dtype, seed=3).detach()
    ours = conv.conv2d_backward(
        as_numpy(grad), as_numpy(x), as_numpy(w), geo, precision=precision(dtype)
    )
    for mine, theirs in zip(ours, torch_grads(fn, [x, w, b], grad), strict=True):
        check(mine, theirs, dtype, scale=8.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv1d_forward_backward_on_strided_input(dtype: str) -> None:
    base = make(2, 12, 3, dtype=dtype)
    x = base.transpose(1, 2)  # (2, 3, 12), non-contiguous
    w = make(5, 3, 4, dtype=dtype, seed=1)
    geo = conv.ConvGeometry.of(2, 1, 1, 1, spatial=1)
    out = conv.conv1d(as_numpy(x), as_numpy(w), None, geo, precision=precision(dtype))
    check(out, nnf.conv1d(x, w, None, 2, 1), dtype, scale=4.0)
    grad = make(*out.shape, dtype=dtype, seed=3).detach()
    gx, gw, _ = conv.conv1d_backward(as_numpy(grad), as_numpy(x), as_numpy(w), geo)
    tx, tw = torch_grads(lambda a, c: nnf.conv1d(a.transpose(1, 2), c, None, 2, 1), [base, w], grad)
    check(gx, tx.transpose(1, 2), dtype, scale=4.0)
    check(gw, tw, dtype, scale=4.0)


@pytest.mark.parametrize(
    ("weight_decay", "amsgrad", "maximize"), [(0.1, False, False), (0.0, True, True)]
)
def test_adamw_steps_match_torch_fused_adamw(
    weight_decay: float, amsgrad: bool, maximize: bool
) -> None:
    param = make(40, dtype="float32").detach()
    ours = as_numpy(param).copy()
    state = [np.zeros_like(ours) for _ in range(3)]
    torch_param = param.clone().requires_grad_(True)
    opt = torch.optim.AdamW(
        [torch_param],
        lr=1e-2,
        weight_decay=weight_decay,
        amsgrad=amsgrad,
        maximize=maximize,
        fused=True,
    )
    config = optim.AdamConfig(
        lr=1e-2, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize
    )
    for step in range(1, 4):
        grad = make(40, dtype="float32", seed=step).detach()
        torch_param.grad = grad.clone()
        opt.step()
        optim.adam_step(
            ours, as_numpy(grad), state[0], state[1], step, config, state[2] if amsgrad else None
        )
    np.testing.assert_allclose(ours, as_numpy(torch_param), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    ("momentum", "nesterov", "weight_decay"),
    [(0.0, False, 0.0), (0.9, True, 0.01), (0.9, False, 0.0)],
)
def test_sgd_steps_match_torch(momentum: float, nesterov: bool, weight_decay: float) -> None:
    param = make(30, dtype="float32").detach()
    ours = as_numpy(param).copy()
    buffer = np.zeros_like(ours)
    torch_param = param.clone().requires_grad_(True)
    opt = torch.optim.SGD(
        [torch_param], lr=0.1, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay
    )
    config = optim.SgdConfig(
        lr=0.1, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay
    )
    for step in range(3):
        grad = make(30, dtype="float32", seed=step + 5).detach()
        torch_param.grad = grad.clone()
        opt.step()
        optim.sgd_step(
            ours, as_numpy(grad), config, buffer if momentum else None, first_step=step == 0
        )
    np.testing.assert_allclose(ours, as_numpy(torch_param), rtol=1e-6, atol=1e-7)


def test_amsgrad_without_buffer_is_an_error() -> None:
    arrays = [np.zeros(3, np.float32) for _ in range(4)]
    with pytest.raises(ValueError, match="max_exp_avg_sq"):
        optim.adam_step(*arrays, step=1, config=optim.AdamConfig(lr=0.1, amsgrad=True))
