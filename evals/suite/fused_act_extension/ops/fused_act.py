"""Fused bias + leaky ReLU + gain (StyleGAN2-style), as a CUDA extension built on first use.

When the extension cannot be built (no nvcc, no CUDA, ABI mismatch) the PyTorch reference
implementation below is used instead; it computes the same function, only slower.
"""

import os
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.utils.cpp_extension import load

_module_path = os.path.dirname(__file__)
_extension = None
_extension_failed = False


def _load_extension():
    global _extension, _extension_failed
    if _extension is not None or _extension_failed:
        return _extension
    if not torch.cuda.is_available() or os.environ.get("FUSED_ACT_DISABLE_EXTENSION") == "1":
        _extension_failed = True
        return None
    try:
        _extension = load(
            name="fused_bias_act",
            sources=[
                os.path.join(_module_path, "csrc", "fused_bias_act.cpp"),
                os.path.join(_module_path, "csrc", "fused_bias_act_kernel.cu"),
            ],
            extra_cuda_cflags=["--use_fast_math"],
            verbose=False,
        )
    except Exception as exc:  # noqa: BLE001 - any build failure means: use the reference path
        warnings.warn(f"Failed to build CUDA kernels for fused_bias_act. Falling back to slow reference implementation. Details:\n\n{exc}")
        _extension_failed = True
    return _extension


class FusedLeakyReLUFunctionBackward(Function):
    @staticmethod
    def forward(ctx, grad_output, out, negative_slope, scale):
        ctx.save_for_backward(out)
        ctx.negative_slope = negative_slope
        ctx.scale = scale
        empty = grad_output.new_empty(0)
        grad_input = _extension.fused_bias_act(grad_output.contiguous(), empty, out, 3, 1, negative_slope, scale)
        dim = [0] + list(range(2, grad_output.ndim))
        grad_bias = grad_input.sum(dim).detach()
        return grad_input, grad_bias

    @staticmethod
    def backward(ctx, gradgrad_input, gradgrad_bias):
        (out,) = ctx.saved_tensors
        gradgrad_out = _extension.fused_bias_act(gradgrad_input.contiguous(), gradgrad_bias, out, 3, 1, ctx.negative_slope, ctx.scale)
        return gradgrad_out, None, None, None


class FusedLeakyReLUFunction(Function):
    @staticmethod
    def forward(ctx, input, bias, negative_slope, scale):
        empty = input.new_empty(0)
        out = _extension.fused_bias_act(input.contiguous(), bias, empty, 3, 0, negative_slope, scale)
        ctx.save_for_backward(out)
        ctx.negative_slope = negative_slope
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        grad_input, grad_bias = FusedLeakyReLUFunctionBackward.apply(grad_output, out, ctx.negative_slope, ctx.scale)
        return grad_input, grad_bias, None, None


def fused_leaky_relu(input, bias, negative_slope=0.2, scale=2**0.5):
    if input.is_cuda and _load_extension() is not None:
        return FusedLeakyReLUFunction.apply(input, bias, negative_slope, scale)
    rest_dim = [1] * (input.ndim - bias.ndim - 1)
    return F.leaky_relu(input + bias.view(1, bias.shape[0], *rest_dim), negative_slope=negative_slope) * scale


class FusedLeakyReLU(nn.Module):
    def __init__(self, channel, negative_slope=0.2, scale=2**0.5):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(channel))
        self.negative_slope = negative_slope
        self.scale = scale

    def forward(self, input):
        return fused_leaky_relu(input, self.bias, self.negative_slope, self.scale)
