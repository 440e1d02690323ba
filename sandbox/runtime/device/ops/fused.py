"""Native kernels at the autograd level for composite ops that PyTorch would otherwise decompose
into many small ops on this device: scaled_dot_product_attention (the tiled flash kernel, forward
and backward) and rms_norm. Registered at AutogradPrivateUse1 (training) and PrivateUse1
(inference mode)."""

from typing import Any

import numpy as np
import torch

from sandbox.kernels import attention, norms
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import COMPUTE_NP, Results, result_type
from sandbox.runtime.device.ops.nn import PRECISION
from sandbox.runtime.device.tensors import read


def _gqa_views(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Group query heads over the key/value heads: (.., Hq, L, E) -> (.., Hkv, G, L, E)."""
    heads, kv_heads = q.shape[-3], k.shape[-3]
    groups = heads // kv_heads
    batch = q.shape[:-3]
    q5 = q.reshape(*batch, kv_heads, groups, *q.shape[-2:])
    k5, v5 = k[..., :, None, :, :], v[..., :, None, :, :]
    if mask is not None:
        full = np.broadcast_to(mask, (*batch, heads, q.shape[-2], k.shape[-2]))
        mask = full.reshape(*batch, kv_heads, groups, q.shape[-2], k.shape[-2])
    return q5, k5, v5, mask


class FlashAttention(torch.autograd.Function):
    """SDPA on the device by `sandbox.kernels.attention`, with its own backward."""

    @staticmethod
    def forward(
        ctx: Any,
        results: Results,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        mask: torch.Tensor | None,
        causal: bool,
        scale: float | None,
        gqa: bool,
    ) -> torch.Tensor:
        precision = PRECISION.get(q.dtype, "float32")
        np_mask = None if mask is None else read(mask)
        arrays = (read(q), read(k), read(v), np_mask)
        qa, ka, va, ma = _gqa_views(*arrays) if gqa else arrays
        out, lse = attention.flash_attention(
            qa, ka, va, mask=ma, causal=causal, scale=scale, precision=precision
        )
        out = out.reshape(*q.shape[:-1], v.shape[-1])
        result = results.new(out, q.dtype, "aten::scaled_dot_product_attention")
        ctx.saved = (
            results,
            arrays,
            out,
            lse,
            causal,
            scale,
            gqa,
            precision,
            (q.dtype, k.dtype, v.dtype),
        )
        return result

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        results, arrays, out, lse, causal, scale, gqa, precision, dtypes = ctx.saved
        qa, ka, va, ma = _gqa_views(*arrays) if gqa else arrays
        g = read(grad).reshape(*qa.shape[:-1], va.shape[-1])
        out_grouped = out.reshape(g.shape)
        gq, gk, gv = attention.flash_attention_backward(
            g,
            qa,
            ka,
            va,
            out_grouped,
            lse,
            mask=ma,
            causal=causal,
            scale=scale,
            precision=precision,
        )
        q, k, v = arrays[0], arrays[1], arrays[2]
        op = "aten::scaled_dot_product_attention_backward"
        return (
            None,
            results.new(gq.reshape(q.shape), dtypes[0], op),
            results.new(gk.reshape(k.shape), dtypes[1], op),
            results.new(gv.reshape(v.shape), dtypes[2], op),
            None,
            None,
            None,
            None,
        )


class RmsNorm(torch.autograd.Function):
    """rms_norm as PyTorch composes it (normalise in float32, cast back, multiply the weight)."""

    @staticmethod
    def forward(
        ctx: Any,
        results: Results,
        x: torch.Tensor,
        ndim: int,
        weight: torch.Tensor | None,
        eps: float | None,
    ) -> torch.Tensor:
        values = read(x)
        normed, rstd = norms.rms_norm(values, ndim, None, eps)
        normed_stored = results.new(normed, x.dtype, "aten::rms_norm")
        out_dtype = x.dtype if weight is None else result_type(normed_stored, weight)
        out_values = read(normed_stored)
        if weight is not None:
            out_values = out_values.astype(COMPUTE_NP[out_dtype]) * read(weight)
        ctx.saved = (results, values, rstd, ndim, None if weight is None else read(weight), x.dtype)
        ctx.weight_dtype = None if weight is None else weight.dtype
        return results.new(out_values, out_dtype, "aten::rms_norm")

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        results, values, rstd, ndim, weight, x_dtype = ctx.saved
        gx, gw = norms.rms_norm_backward(read(grad), values, rstd, ndim, weight)
        op = "aten::rms_norm_backward"
        grad_weight = None
        if weight is not None and ctx.needs_input_grad[3]:
            grad_weight = results.new(gw.reshape(weight.shape), ctx.weight_dtype, op)
        return None, results.new(gx, x_dtype, op), None, grad_weight, None


def register(ctx: DeviceContext) -> None:
    """Register SDPA and rms_norm at the autograd and inference keys of the device."""
    results = Results(ctx.allocator)

    def sdpa(
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        attn_mask: torch.Tensor | None = None,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        *,
        scale: float | None = None,
        enable_gqa: bool = False,
    ) -> torch.Tensor:
        needs_math = dropout_p > 0.0 or (attn_mask is not None and attn_mask.requires_grad)
        if needs_math or not q.is_floating_point():
            return torch.ops.aten._scaled_dot_product_attention_math(
                q, k, v, attn_mask, dropout_p, is_causal, scale=scale, enable_gqa=enable_gqa
            )[0]
        gqa = enable_gqa and q.dim() >= 3 and q.shape[-3] != k.shape[-3]
        return FlashAttention.apply(results, q, k, v, attn_mask, is_causal, scale, gqa)

    def rms_norm(
        x: torch.Tensor,
        normalized_shape: list[int],
        weight: torch.Tensor | None = None,
        eps: float | None = None,
    ) -> torch.Tensor:
        return RmsNorm.apply(results, x, len(normalized_shape), weight, eps)

    for key in ("AutogradPrivateUse1", "PrivateUse1"):
        ctx.registry.impl("scaled_dot_product_attention", sdpa, key=key)
        ctx.registry.impl("rms_norm", rms_norm, key=key)
