"""The fused LSTM/GRU cells PyTorch calls for `nn.LSTM`/`nn.GRU` on an accelerator
(`_thnn_fused_lstm_cell`, `_thnn_fused_gru_cell` and their backward; they have no CPU kernel, so
the fallback cannot serve them), computed by `sandbox.kernels.recurrent`."""

from typing import Any

import numpy as np
import torch

from sandbox.kernels import recurrent
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import Results
from sandbox.runtime.device.tensors import read


def _optional(t: torch.Tensor | None) -> np.ndarray | None:
    return None if t is None else read(t)


class RecurrentOps:
    """Kernels of the fused recurrent cells of one device."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.results = Results(ctx.allocator)

    def _new(self, values: np.ndarray | None, dtype: torch.dtype, op: str) -> Any:
        return None if values is None else self.results.new(values, dtype, op)

    def lstm_cell(
        self,
        input_gates: torch.Tensor,
        hidden_gates: torch.Tensor,
        cx: torch.Tensor,
        input_bias: torch.Tensor | None = None,
        hidden_bias: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        arrays = recurrent.lstm_cell(
            read(input_gates),
            read(hidden_gates),
            read(cx),
            _optional(input_bias),
            _optional(hidden_bias),
        )
        op, dtype = "aten::_thnn_fused_lstm_cell", input_gates.dtype
        hy, cy, workspace = (self.results.new(values, dtype, op) for values in arrays)
        return hy, cy, workspace

    def lstm_cell_backward(
        self,
        grad_hy: torch.Tensor | None,
        grad_cy: torch.Tensor | None,
        cx: torch.Tensor,
        cy: torch.Tensor,
        workspace: torch.Tensor,
        has_bias: bool,
    ) -> tuple[Any, ...]:
        arrays = recurrent.lstm_cell_backward(
            _optional(grad_hy), _optional(grad_cy), read(cx), read(cy), read(workspace), has_bias
        )
        op, dtype = "aten::_thnn_fused_lstm_cell_backward_impl", workspace.dtype
        return tuple(self._new(values, dtype, op) for values in arrays)

    def gru_cell(
        self,
        input_gates: torch.Tensor,
        hidden_gates: torch.Tensor,
        hx: torch.Tensor,
        input_bias: torch.Tensor | None = None,
        hidden_bias: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        hy, workspace = recurrent.gru_cell(
            read(input_gates),
            read(hidden_gates),
            read(hx),
            _optional(input_bias),
            _optional(hidden_bias),
        )
        op, dtype = "aten::_thnn_fused_gru_cell", input_gates.dtype
        return self.results.new(hy, dtype, op), self.results.new(workspace, dtype, op)

    def gru_cell_backward(
        self, grad_hy: torch.Tensor, workspace: torch.Tensor, has_bias: bool
    ) -> tuple[Any, ...]:
        arrays = recurrent.gru_cell_backward(read(grad_hy), read(workspace), has_bias)
        op, dtype = "aten::_thnn_fused_gru_cell_backward", workspace.dtype
        return tuple(self._new(values, dtype, op) for values in arrays)


def register(ctx: DeviceContext) -> None:
    """Register the fused recurrent cells on `ctx.registry`."""
    ops = RecurrentOps(ctx)
    ctx.registry.impl("_thnn_fused_lstm_cell", ops.lstm_cell)
    ctx.registry.impl("_thnn_fused_lstm_cell_backward_impl", ops.lstm_cell_backward)
    ctx.registry.impl("_thnn_fused_gru_cell", ops.gru_cell)
    ctx.registry.impl("_thnn_fused_gru_cell_backward", ops.gru_cell_backward)
