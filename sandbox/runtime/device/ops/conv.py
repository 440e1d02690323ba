"""Native convolution: PyTorch routes convolutions of PrivateUse1 tensors to
`convolution_overrideable` and `convolution_backward_overrideable`. 1-D and 2-D cross-correlations
run on `sandbox.kernels.conv`; transposed and 3-D convolutions run on the CPU and are counted as
fallback calls (CPU has no kernel for the overrideable ops, so the boxed fallback cannot)."""

from collections.abc import Sequence
from typing import Any

import torch

from sandbox.kernels import conv
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.fallback import CpuFallback
from sandbox.runtime.device.ops.common import Results
from sandbox.runtime.device.ops.nn import PRECISION
from sandbox.runtime.device.tensors import read

aten = torch.ops.aten
FORWARD = "aten::convolution_overrideable"
BACKWARD = "aten::convolution_backward_overrideable"


def _native(x: torch.Tensor, transposed: bool) -> bool:
    return not transposed and x.dim() in (3, 4)


def _geometry(
    x: torch.Tensor,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> conv.ConvGeometry:
    spatial = x.dim() - 2
    return conv.ConvGeometry.of(
        tuple(stride), tuple(padding), tuple(dilation), groups, spatial=spatial
    )


class ConvOps:
    """Kernels of the overrideable convolution ops (they count their calls themselves)."""

    def __init__(self, ctx: DeviceContext, fallback: CpuFallback) -> None:
        self.results = Results(ctx.allocator)
        self.metrics = ctx.metrics
        self.fallback = fallback

    def forward(
        self,
        x: torch.Tensor,
        weight: torch.Tensor,
        bias: torch.Tensor | None,
        stride: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        transposed: bool,
        output_padding: Sequence[int],
        groups: int,
    ) -> torch.Tensor:
        if not _native(x, transposed):
            args = (x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
            return self.fallback.run_as(aten.convolution.default, FORWARD, args)
        self.metrics.count_native(FORWARD)
        fn = conv.conv1d if x.dim() == 3 else conv.conv2d
        values = fn(
            read(x),
            read(weight),
            None if bias is None else read(bias),
            _geometry(x, stride, padding, dilation, groups),
            precision=PRECISION.get(x.dtype, "float32"),
        )
        return self.results.new(values, x.dtype, FORWARD)

    def backward(
        self,
        grad: torch.Tensor,
        x: torch.Tensor,
        weight: torch.Tensor,
        stride: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        transposed: bool,
        output_padding: Sequence[int],
        groups: int,
        output_mask: Sequence[bool],
    ) -> tuple[Any, ...]:
        if not _native(x, transposed):
            geometry = (stride, padding, dilation, transposed, output_padding, groups)
            args = (grad, x, weight, None, *geometry, output_mask)
            return self.fallback.run_as(aten.convolution_backward.default, BACKWARD, args)
        self.metrics.count_native(BACKWARD)
        fn = conv.conv1d_backward if x.dim() == 3 else conv.conv2d_backward
        gx, gw, gb = fn(
            read(grad),
            read(x),
            read(weight),
            _geometry(x, stride, padding, dilation, groups),
            precision=PRECISION.get(x.dtype, "float32"),
        )
        new = self.results.new
        return (
            new(gx, x.dtype, BACKWARD) if output_mask[0] else None,
            new(gw, weight.dtype, BACKWARD) if output_mask[1] else None,
            new(gb, grad.dtype, BACKWARD) if output_mask[2] else None,
        )


def register(ctx: DeviceContext, fallback: CpuFallback) -> None:
    """Register the overrideable convolution ops."""
    ops = ConvOps(ctx, fallback)
    ctx.registry.impl("convolution_overrideable", ops.forward, counted=False)
    ctx.registry.impl("convolution_backward_overrideable", ops.backward, counted=False)
