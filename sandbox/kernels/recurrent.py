"""The fused LSTM and GRU cells of PyTorch's accelerator path, forward and backward, in float32.

On CUDA (and on any PrivateUse1 device) `nn.LSTM`/`nn.GRU` compute the gate pre-activations with
two matmuls and leave the rest of each time step to one fused kernel
(`_thnn_fused_lstm_cell`, `_thnn_fused_gru_cell`) that also returns a workspace for its backward.
These are those kernels, with CUDA's workspace layout:
LSTM: the activated gates (input, forget, cell, output), (B, 4H);
GRU: reset, update and new gates, the previous hidden state and the hidden part of the new gate
(`hn + b_hn`), (B, 5H).
"""

import numpy as np

from sandbox.kernels.activations import sigmoid
from sandbox.kernels.precision import AnyArray, FloatArray


def _gates(
    input_gates: AnyArray,
    hidden_gates: AnyArray,
    input_bias: AnyArray | None,
    hidden_bias: AnyArray | None,
) -> FloatArray:
    """`input_gates + hidden_gates + input_bias + hidden_bias`, added in CUDA's order."""
    total = np.add(input_gates, hidden_gates, dtype=np.float32)
    if input_bias is not None:
        total += input_bias
    if hidden_bias is not None:
        total += hidden_bias
    return total


def lstm_cell(
    input_gates: AnyArray,
    hidden_gates: AnyArray,
    cx: AnyArray,
    input_bias: AnyArray | None = None,
    hidden_bias: AnyArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One LSTM step from gate pre-activations (B, 4H): (hy, cy, workspace)."""
    gates = _gates(input_gates, hidden_gates, input_bias, hidden_bias)
    ingate, forget, cell, outgate = np.split(gates, 4, axis=-1)
    ingate, forget, outgate = sigmoid(ingate), sigmoid(forget), sigmoid(outgate)
    cell = np.tanh(cell)
    cy = forget * np.asarray(cx, dtype=np.float32) + ingate * cell
    hy = outgate * np.tanh(cy)
    workspace = np.concatenate([ingate, forget, cell, outgate], axis=-1)
    return hy, cy, workspace


def lstm_cell_backward(
    grad_hy: AnyArray | None,
    grad_cy: AnyArray | None,
    cx: AnyArray,
    cy: AnyArray,
    workspace: AnyArray,
    has_bias: bool,
) -> tuple[FloatArray, FloatArray, FloatArray | None]:
    """Gradients of `lstm_cell`: (gate pre-activations, cx, bias or None)."""
    ingate, forget, cell, outgate = np.split(np.asarray(workspace, dtype=np.float32), 4, axis=-1)
    tanh_cy = np.tanh(np.asarray(cy, dtype=np.float32))
    grad_h = np.zeros_like(tanh_cy) if grad_hy is None else np.asarray(grad_hy, np.float32)
    grad_c = grad_h * outgate * (1 - tanh_cy * tanh_cy)
    if grad_cy is not None:
        grad_c = grad_c + grad_cy
    grad_in = grad_c * cell * ingate * (1 - ingate)
    grad_forget = grad_c * np.asarray(cx, dtype=np.float32) * forget * (1 - forget)
    grad_cell = grad_c * ingate * (1 - cell * cell)
    grad_out = grad_h * tanh_cy * outgate * (1 - outgate)
    grad_gates = np.concatenate([grad_in, grad_forget, grad_cell, grad_out], axis=-1)
    grad_bias = grad_gates.sum(axis=0) if has_bias else None
    return grad_gates, grad_c * forget, grad_bias


def gru_cell(
    input_gates: AnyArray,
    hidden_gates: AnyArray,
    hx: AnyArray,
    input_bias: AnyArray | None = None,
    hidden_bias: AnyArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """One GRU step from gate pre-activations (B, 3H): (hy, workspace)."""
    ir, ii, inew = np.split(np.asarray(input_gates, dtype=np.float32), 3, axis=-1)
    hr, hi, hnew = np.split(np.asarray(hidden_gates, dtype=np.float32), 3, axis=-1)
    if input_bias is not None:
        bir, bii, binew = np.split(np.asarray(input_bias, dtype=np.float32), 3, axis=-1)
        ir, ii, inew = ir + bir, ii + bii, inew + binew
    if hidden_bias is not None:
        bhr, bhi, bhnew = np.split(np.asarray(hidden_bias, dtype=np.float32), 3, axis=-1)
        hr, hi, hnew = hr + bhr, hi + bhi, hnew + bhnew
    reset = sigmoid(ir + hr)
    update = sigmoid(ii + hi)
    new = np.tanh(inew + reset * hnew)
    previous = np.broadcast_to(np.asarray(hx, dtype=np.float32), new.shape)
    hy = new + update * (previous - new)
    workspace = np.concatenate([reset, update, new, previous, hnew], axis=-1)
    return hy, workspace


def gru_cell_backward(
    grad_hy: AnyArray, workspace: AnyArray, has_bias: bool
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray | None, FloatArray | None]:
    """Gradients of `gru_cell`: (input gates, hidden gates, hx, input bias, hidden bias)."""
    reset, update, new, previous, hnew = np.split(
        np.asarray(workspace, dtype=np.float32), 5, axis=-1
    )
    grad = np.asarray(grad_hy, dtype=np.float32)
    grad_hx = grad * update
    grad_new = (grad - grad_hx) * (1 - new * new)
    grad_update = grad * (previous - new) * update * (1 - update)
    grad_reset = grad_new * hnew * reset * (1 - reset)
    grad_input = np.concatenate([grad_reset, grad_update, grad_new], axis=-1)
    grad_hidden = np.concatenate([grad_reset, grad_update, grad_new * reset], axis=-1)
    if not has_bias:
        return grad_input, grad_hidden, grad_hx, None, None
    return grad_input, grad_hidden, grad_hx, grad_input.sum(axis=0), grad_hidden.sum(axis=0)
