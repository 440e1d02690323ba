"""Native neural-network kernels: the matmul family, softmax/log_softmax, layer norm, activations
with their backward ops, embedding and nll_loss; all computed by `sandbox.kernels`."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from sandbox.kernels import activations, embedding, losses, matmul, norms, softmax
from sandbox.kernels.losses import Reduction
from sandbox.kernels.precision import Precision
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import Results
from sandbox.runtime.device.tensors import np_view, read

PRECISION: dict[torch.dtype, Precision] = {torch.bfloat16: "bfloat16", torch.float16: "float16"}
REDUCTIONS: dict[int, Reduction] = {0: "none", 1: "mean", 2: "sum"}


def _same_dtype(a: torch.Tensor, b: torch.Tensor, names: str) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected {names} to have the same dtype, but got: "
            f"{str(a.dtype).removeprefix('torch.')} != {str(b.dtype).removeprefix('torch.')}"
        )


def _optional(t: torch.Tensor | None) -> np.ndarray | None:
    return None if t is None else read(t)


class NeuralOps:
    """Kernels of the NN ops of one device."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.results = Results(ctx.allocator)

    # matmul family -------------------------------------------------------------------------
    def mm(self, a: torch.Tensor, b: torch.Tensor, **kw: Any) -> torch.Tensor:
        _same_dtype(a, b, "m1 and m2")
        precision = PRECISION.get(a.dtype, "float32")
        values = matmul.matmul(read(a), read(b), precision=precision)
        return self.results.emit(values, a.dtype, "aten::mm", kw.get("out"))

    def addmm(
        self, bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor, **kw: Any
    ) -> torch.Tensor:
        _same_dtype(a, b, "m1 and m2")
        precision = PRECISION.get(a.dtype, "float32")
        values = matmul.addmm(
            read(bias),
            read(a),
            read(b),
            beta=float(kw.get("beta", 1)),
            alpha=float(kw.get("alpha", 1)),
            precision=precision,
        )
        return self.results.emit(values, a.dtype, "aten::addmm", kw.get("out"))

    def addmm_(
        self, bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor, **kw: Any
    ) -> torch.Tensor:
        return self.results.inplace(bias, read(self.addmm(bias, a, b, **kw)))

    def dot(self, a: torch.Tensor, b: torch.Tensor, **kw: Any) -> torch.Tensor:
        _same_dtype(a, b, "both vectors")
        values = matmul.matmul(read(a), read(b), precision=PRECISION.get(a.dtype, "float32"))
        return self.results.emit(values, a.dtype, "aten::dot", kw.get("out"))

    # softmax ----------------------------------------------------------------------------------
    def softmax(self, x: torch.Tensor, dim: int, half_to_float: bool, **kw: Any) -> torch.Tensor:
        dtype = torch.float32 if half_to_float else x.dtype
        return self.results.emit(
            softmax.softmax(read(x), dim), dtype, "aten::_softmax", kw.get("out")
        )

    def log_softmax(
        self, x: torch.Tensor, dim: int, half_to_float: bool, **kw: Any
    ) -> torch.Tensor:
        dtype = torch.float32 if half_to_float else x.dtype
        values = softmax.log_softmax(read(x), dim)
        return self.results.emit(values, dtype, "aten::_log_softmax", kw.get("out"))

    def softmax_backward(
        self, grad: torch.Tensor, out: torch.Tensor, dim: int, input_dtype: torch.dtype, **kw: Any
    ) -> torch.Tensor:
        values = softmax.softmax_backward(read(grad), read(out), dim)
        return self.results.emit(
            values, input_dtype, "aten::_softmax_backward_data", kw.get("grad_input")
        )

    def log_softmax_backward(
        self, grad: torch.Tensor, out: torch.Tensor, dim: int, input_dtype: torch.dtype, **kw: Any
    ) -> torch.Tensor:
        values = softmax.log_softmax_backward(read(grad), read(out), dim)
        op = "aten::_log_softmax_backward_data"
        return self.results.emit(values, input_dtype, op, kw.get("out"))

    # layer norm -------------------------------------------------------------------------------
    def layer_norm(
        self,
        x: torch.Tensor,
        normalized_shape: Sequence[int],
        weight: torch.Tensor | None,
        bias: torch.Tensor | None,
        eps: float,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        ndim = len(normalized_shape)
        y, mean, rstd = norms.layer_norm(read(x), ndim, _optional(weight), _optional(bias), eps)
        stats_shape = (*x.shape[: x.dim() - ndim], *([1] * ndim))
        stats_dtype = _stats_dtype(x, weight)
        new = self.results.new
        op = "aten::native_layer_norm"
        return (
            new(y, x.dtype, op),
            new(mean.reshape(stats_shape), stats_dtype, op),
            new(rstd.reshape(stats_shape), stats_dtype, op),
        )

    def layer_norm_backward(
        self,
        grad: torch.Tensor,
        x: torch.Tensor,
        normalized_shape: Sequence[int],
        mean: torch.Tensor,
        rstd: torch.Tensor,
        weight: torch.Tensor | None,
        bias: torch.Tensor | None,
        output_mask: Sequence[bool],
    ) -> tuple[torch.Tensor | None, ...]:
        ndim = len(normalized_shape)
        gx, gw, gb = norms.layer_norm_backward(
            read(grad), read(x), read(mean), read(rstd), ndim, _optional(weight)
        )
        op = "aten::native_layer_norm_backward"
        new = self.results.new
        param_shape = tuple(normalized_shape)
        return (
            new(gx, x.dtype, op) if output_mask[0] else None,
            new(gw.reshape(param_shape), weight.dtype, op)
            if output_mask[1] and weight is not None
            else None,
            new(gb.reshape(param_shape), bias.dtype, op)
            if output_mask[2] and bias is not None
            else None,
        )

    # activations -------------------------------------------------------------------------------
    def gelu(self, x: torch.Tensor, **kw: Any) -> torch.Tensor:
        values = activations.gelu(read(x), kw.get("approximate", "none"))
        return self.results.emit(values, x.dtype, "aten::gelu", kw.get("out"))

    def gelu_(self, x: torch.Tensor, **kw: Any) -> torch.Tensor:
        return self.results.inplace(x, activations.gelu(read(x), kw.get("approximate", "none")))

    def gelu_backward(self, grad: torch.Tensor, x: torch.Tensor, **kw: Any) -> torch.Tensor:
        values = activations.gelu_backward(read(grad), read(x), kw.get("approximate", "none"))
        return self.results.emit(values, x.dtype, "aten::gelu_backward", kw.get("grad_input"))

    def silu_backward(self, grad: torch.Tensor, x: torch.Tensor, **kw: Any) -> torch.Tensor:
        values = activations.silu_backward(read(grad), read(x))
        return self.results.emit(values, x.dtype, "aten::silu_backward", kw.get("grad_input"))

    def sigmoid_backward(self, grad: torch.Tensor, out: torch.Tensor, **kw: Any) -> torch.Tensor:
        y = read(out)
        values = read(grad) * y * (1.0 - y)
        return self.results.emit(values, out.dtype, "aten::sigmoid_backward", kw.get("grad_input"))

    def tanh_backward(self, grad: torch.Tensor, out: torch.Tensor, **kw: Any) -> torch.Tensor:
        y = read(out)
        values = read(grad) * (1.0 - y * y)
        return self.results.emit(values, out.dtype, "aten::tanh_backward", kw.get("grad_input"))

    def threshold_backward(
        self, grad: torch.Tensor, x: torch.Tensor, threshold: float, **kw: Any
    ) -> torch.Tensor:
        values = activations.threshold_backward(read(grad), read(x), threshold)
        return self.results.emit(
            values, grad.dtype, "aten::threshold_backward", kw.get("grad_input")
        )

    # embedding and losses -----------------------------------------------------------------
    def embedding(
        self,
        weight: torch.Tensor,
        indices: torch.Tensor,
        padding_idx: int = -1,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> torch.Tensor:
        rows = embedding.embedding(np_view(weight), read(indices))
        return self.results.allocator.wrap(rows, weight.dtype, "aten::embedding")

    def embedding_backward(
        self,
        grad: torch.Tensor,
        indices: torch.Tensor,
        num_weights: int,
        padding_idx: int,
        scale_grad_by_freq: bool,
    ) -> torch.Tensor:
        values = embedding.embedding_backward(
            read(grad), read(indices), num_weights, padding_idx, scale_grad_by_freq
        )
        return self.results.new(values, grad.dtype, "aten::embedding_dense_backward")

    def nll_loss(
        self,
        log_probs: torch.Tensor,
        target: torch.Tensor,
        weight: torch.Tensor | None,
        reduction: int,
        ignore_index: int,
        **kw: Any,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        loss, total = losses.nll_loss(
            read(log_probs), read(target), _optional(weight), REDUCTIONS[reduction], ignore_index
        )
        new = self.results.new
        op = "aten::nll_loss_forward"
        return new(loss, log_probs.dtype, op), new(total, log_probs.dtype, op)

    def nll_loss_backward(
        self,
        grad: torch.Tensor,
        log_probs: torch.Tensor,
        target: torch.Tensor,
        weight: torch.Tensor | None,
        reduction: int,
        ignore_index: int,
        total_weight: torch.Tensor,
        **kw: Any,
    ) -> torch.Tensor:
        values = losses.nll_loss_backward(
            read(grad),
            read(log_probs),
            read(target),
            _optional(weight),
            REDUCTIONS[reduction],
            ignore_index,
            float(read(total_weight)),
        )
        return self.results.emit(
            values, log_probs.dtype, "aten::nll_loss_backward", kw.get("grad_input")
        )


def _stats_dtype(x: torch.Tensor, weight: torch.Tensor | None) -> torch.dtype:
    """native_layer_norm's mean/rstd dtype: float32 for reduced inputs with float32 weights."""
    if x.dtype in PRECISION and weight is not None and weight.dtype is torch.float32:
        return torch.float32
    return x.dtype


def register(ctx: DeviceContext) -> None:
    """Register the NN kernels."""
    ops = NeuralOps(ctx)
    reg = ctx.registry
    reg.impl(["mm", "mm.out", "bmm", "bmm.out", "mv", "mv.out"], ops.mm)
    reg.impl(["addmm", "addmm.out", "baddbmm", "baddbmm.out"], ops.addmm)
    reg.impl(["addmm_", "baddbmm_"], ops.addmm_)
    reg.impl(["dot", "dot.out", "vdot", "vdot.out"], ops.dot)
    reg.impl(["_softmax", "_softmax.out"], ops.softmax)
    reg.impl(["_log_softmax", "_log_softmax.out"], ops.log_softmax)
    reg.impl(["_softmax_backward_data", "_softmax_backward_data.out"], ops.softmax_backward)
    reg.impl(
        ["_log_softmax_backward_data", "_log_softmax_backward_data.out"], ops.log_softmax_backward
    )
    reg.impl("native_layer_norm", ops.layer_norm)
    reg.impl("native_layer_norm_backward", ops.layer_norm_backward)
    reg.impl(["gelu", "gelu.out"], ops.gelu)
    reg.impl("gelu_", ops.gelu_)
    reg.impl(["gelu_backward", "gelu_backward.grad_input"], ops.gelu_backward)
    reg.impl(["silu_backward", "silu_backward.grad_input"], ops.silu_backward)
    reg.impl(["sigmoid_backward", "sigmoid_backward.grad_input"], ops.sigmoid_backward)
    reg.impl(["tanh_backward", "tanh_backward.grad_input"], ops.tanh_backward)
    reg.impl(["threshold_backward", "threshold_backward.grad_input"], ops.threshold_backward)
    reg.impl("embedding", ops.embedding)
    reg.impl("embedding_dense_backward", ops.embedding_backward)
    reg.impl("nll_loss_forward", ops.nll_loss)
    reg.impl(["nll_loss_backward", "nll_loss_backward.grad_input"], ops.nll_loss_backward)
