"""The fused LSTM/GRU cells against PyTorch CPU's own cells (`torch.lstm_cell`/`gru_cell`, with
the gate matmuls done outside, as the accelerator path does), forward and backward."""

import numpy as np
import pytest
import torch

from sandbox.kernels import recurrent
from tests.kernels.helpers import as_numpy, check, make

BATCH, HIDDEN = 3, 5


def _lstm_reference(
    gates_in: torch.Tensor,
    gates_hidden: torch.Tensor,
    cx: torch.Tensor,
    bias_in: torch.Tensor | None,
    bias_hidden: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    gates = gates_in + gates_hidden
    if bias_in is not None and bias_hidden is not None:
        gates = gates + bias_in + bias_hidden
    ingate, forget, cell, outgate = gates.chunk(4, dim=1)
    cy = forget.sigmoid() * cx + ingate.sigmoid() * cell.tanh()
    return outgate.sigmoid() * cy.tanh(), cy


def _gru_reference(
    gates_in: torch.Tensor,
    gates_hidden: torch.Tensor,
    hx: torch.Tensor,
    bias_in: torch.Tensor | None,
    bias_hidden: torch.Tensor | None,
) -> torch.Tensor:
    if bias_in is not None and bias_hidden is not None:
        gates_in, gates_hidden = gates_in + bias_in, gates_hidden + bias_hidden
    ir, ii, inew = gates_in.chunk(3, dim=1)
    hr, hi, hnew = gates_hidden.chunk(3, dim=1)
    reset, update = (ir + hr).sigmoid(), (ii + hi).sigmoid()
    new = (inew + reset * hnew).tanh()
    return new + update * (hx - new)


def _inputs(width: int, with_bias: bool) -> list[torch.Tensor | None]:
    gates_in = make(BATCH, width * HIDDEN, dtype="float32", seed=1, scale=2.0)
    gates_hidden = make(BATCH, width * HIDDEN, dtype="float32", seed=2, scale=2.0)
    state = make(BATCH, HIDDEN, dtype="float32", seed=3)
    bias_in = make(width * HIDDEN, dtype="float32", seed=4) if with_bias else None
    bias_hidden = make(width * HIDDEN, dtype="float32", seed=5) if with_bias else None
    return [gates_in, gates_hidden, state, bias_in, bias_hidden]


def _numpy(values: list[torch.Tensor | None]) -> list[np.ndarray | None]:
    return [None if value is None else as_numpy(value) for value in values]


def _grads(
    outputs: list[torch.Tensor], grads: list[torch.Tensor], inputs: list[torch.Tensor | None]
) -> list[torch.Tensor]:
    leaves = [value for value in inputs if value is not None]
    return list(torch.autograd.grad(outputs, leaves, grads))


@pytest.mark.parametrize("with_bias", [True, False])
def test_lstm_cell_forward_and_backward(with_bias: bool) -> None:
    inputs = _inputs(4, with_bias)
    hy, cy, workspace = recurrent.lstm_cell(*_numpy(inputs))
    t_hy, t_cy = _lstm_reference(*inputs)
    check(hy, t_hy, "float32")
    check(cy, t_cy, "float32")
    grad_hy = make(BATCH, HIDDEN, dtype="float32", seed=6).detach()
    grad_cy = make(BATCH, HIDDEN, dtype="float32", seed=7).detach()
    grad_gates, grad_cx, grad_bias = recurrent.lstm_cell_backward(
        as_numpy(grad_hy), as_numpy(grad_cy), as_numpy(inputs[2]), cy, workspace, with_bias
    )
    expected = _grads([t_hy, t_cy], [grad_hy, grad_cy], inputs)
    check(grad_gates, expected[0], "float32")
    check(grad_gates, expected[1], "float32")  # the hidden gates get the same gradient
    check(grad_cx, expected[2], "float32")
    if with_bias:
        assert grad_bias is not None
        check(grad_bias, expected[3], "float32")
    else:
        assert grad_bias is None


def test_lstm_cell_backward_without_a_cell_state_gradient() -> None:
    inputs = _inputs(4, True)
    _, cy, workspace = recurrent.lstm_cell(*_numpy(inputs))
    t_hy, _ = _lstm_reference(*inputs)
    grad_hy = make(BATCH, HIDDEN, dtype="float32", seed=6).detach()
    grad_gates, grad_cx, _ = recurrent.lstm_cell_backward(
        as_numpy(grad_hy), None, as_numpy(inputs[2]), cy, workspace, True
    )
    expected = _grads([t_hy], [grad_hy], inputs)
    check(grad_gates, expected[0], "float32")
    check(grad_cx, expected[2], "float32")


@pytest.mark.parametrize("with_bias", [True, False])
def test_gru_cell_forward_and_backward(with_bias: bool) -> None:
    inputs = _inputs(3, with_bias)
    hy, workspace = recurrent.gru_cell(*_numpy(inputs))
    t_hy = _gru_reference(*inputs)
    check(hy, t_hy, "float32")
    grad_hy = make(BATCH, HIDDEN, dtype="float32", seed=6).detach()
    grad_in, grad_hidden, grad_hx, bias_in, bias_hidden = recurrent.gru_cell_backward(
        as_numpy(grad_hy), workspace, with_bias
    )
    expected = _grads([t_hy], [grad_hy], inputs)
    check(grad_in, expected[0], "float32")
    check(grad_hidden, expected[1], "float32")
    check(grad_hx, expected[2], "float32")
    if with_bias:
        assert bias_in is not None
        assert bias_hidden is not None
        check(bias_in, expected[3], "float32")
        check(bias_hidden, expected[4], "float32")
    else:
        assert bias_in is None
        assert bias_hidden is None


def test_cells_match_torchs_own_cell_functions() -> None:
    x, h, c = (make(BATCH, HIDDEN, dtype="float32", seed=s).detach() for s in (1, 2, 3))
    w_ih = make(4 * HIDDEN, HIDDEN, dtype="float32", seed=4).detach()
    w_hh = make(4 * HIDDEN, HIDDEN, dtype="float32", seed=5).detach()
    hy, cy = torch.lstm_cell(x, (h, c), w_ih, w_hh)
    ours = recurrent.lstm_cell(as_numpy(x @ w_ih.T), as_numpy(h @ w_hh.T), as_numpy(c))
    check(ours[0], hy, "float32")
    check(ours[1], cy, "float32")
    gru_ih, gru_hh = w_ih[: 3 * HIDDEN], w_hh[: 3 * HIDDEN]
    ours_gru, _ = recurrent.gru_cell(as_numpy(x @ gru_ih.T), as_numpy(h @ gru_hh.T), as_numpy(h))
    check(ours_gru, torch.gru_cell(x, h, gru_ih, gru_hh), "float32")
