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


def register(ctx: DeviceContext, fallback: CpuFallback) -> None:
    """Register the overrideable convolution ops."""
    results = Results(ctx.allocator)

    def forward(
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
            return fallback.run_as(aten.convolution.default, "aten::convolution_overrideable", args)
        ctx.metrics.count_native("aten::convolution_overrideable")
        geo = _geometry(x, stride, padding, dilation, groups)
        fn = conv.conv1d if x.dim() == 3 else conv.conv2d
        precision = PRECISION.get(x.dtype, "float32")
        values = fn(
            read(x), read(weight), None if bias is None else read(bias), geo, precision=precision
        )
        return results.new(values, x.dtype, "aten::convolution_overrideable")

    def backward(
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
            args = (
                grad,
                x,
                weight,
                None,
                stride,
                padding,
                dilation,
                transposed,
                output_padding,
                groups,
                output_mask,
            )
            return fallback.run_as(
                aten.convolution_backward.default, "aten::convolution_backward_overrideable", args
            )
        ctx.metrics.count_native("aten::convolution_backward_overrideable")
        geo = _geometry(x, stride, padding, dilation, groups)
        fn = conv.conv1d_backward if x.dim() == 3 else conv.conv2d_backward
        gx, gw, gb = fn(
            read(grad), read(x), read(weight), geo, precision=PRECISION.get(x.dtype, "float32")
        )
        op = "aten::convolution_backward_overrideable"
        return (
            results.new(gx, x.dtype, op) if output_mask[0] else None,
            results.new(gw, weight.dtype, op) if output_mask[1] else None,
            results.new(gb, grad.dtype, op) if output_mask[2] else None,
        )

    ctx.registry.impl("convolution_overrideable", forward, counted=False)
    ctx.registry.impl("convolution_backward_overrideable", backward, counted=False)
