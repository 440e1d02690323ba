"""Fixers for CUDA-only libraries: flash-attn, xformers, apex (TP150-TP152)."""

import libcst as cst

from tools.codemods.build import arguments, code, keyword_arg, operand
from tools.codemods.context import FixContext
from tools.scanner.libraries import (
    APEX_ADAM,
    APEX_NORMS,
    FLASH_FUNC,
    FLASH_PACKED,
    XFORMERS_ATTENTION,
    is_lower_triangular,
)
from tools.scanner.patterns import argument, keyword
from tools.scanner.site import Site

SDPA = "scaled_dot_product_attention"


def fix_library(site: Site, context: FixContext) -> str:
    """An import (dropped once unused) or a call with a PyTorch equivalent."""
    if isinstance(site.node, cst.ImportAlias):
        alias = site.node
        bound = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
        context.release_import(site.data, bound)
        return f"drop the {alias.evaluated_name} import once unused"
    call = site.node
    assert isinstance(call, cst.Call)
    qualified = context.facts.qname(call) or ""
    context.release(call.func)
    if qualified in FLASH_FUNC or qualified in FLASH_PACKED:
        return _flash(call, qualified in FLASH_PACKED, context)
    if qualified in XFORMERS_ATTENTION:
        return _xformers(call, context)
    if qualified in APEX_ADAM:
        return _adam(call, context)
    return _norm(call, APEX_NORMS[qualified], context)


def _functional(context: FixContext) -> str:
    return context.module_alias("torch.nn.functional") or f"{context.torch()}.nn.functional"


def _attention(
    inputs: list[cst.Arg], options: list[cst.Arg], context: FixContext
) -> cst.BaseExpression:
    """`F.scaled_dot_product_attention(<inputs>, <options>).transpose(1, 2)`."""
    func = cst.parse_expression(f"{_functional(context)}.{SDPA}")
    attention = cst.Call(func=func, args=arguments([*inputs, *options]))
    return cst.Call(
        func=cst.Attribute(value=attention, attr=cst.Name("transpose")),
        args=arguments([cst.Arg(cst.Integer("1")), cst.Arg(cst.Integer("2"))]),
    )


def _transposed(value: cst.BaseExpression) -> cst.Arg:
    call = cst.Call(
        func=cst.Attribute(value=operand(value), attr=cst.Name("transpose")),
        args=arguments([cst.Arg(cst.Integer("1")), cst.Arg(cst.Integer("2"))]),
    )
    return cst.Arg(value=call)


def _flash(call: cst.Call, packed: bool, context: FixContext) -> str:
    """flash_attn_func(q, k, v, dropout_p, softmax_scale, causal) on (B, S, H, D) tensors."""
    names = ("dropout_p", "softmax_scale", "causal")
    first_option = 1 if packed else 3
    renamed = {"dropout_p": "dropout_p", "softmax_scale": "scale", "causal": "is_causal"}

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        options = []
        for offset, name in enumerate(names):
            arg = argument(updated, first_option + offset, name)
            if arg is not None:
                options.append(keyword_arg(renamed[name], arg.value))
        options.append(keyword_arg("enable_gqa", cst.Name("True")))
        if packed:  # qkv is (B, S, 3, H, D): unbind to three (B, H, S, D) tensors
            qkv = updated.args[0].value
            inputs = [
                cst.Arg(
                    value=cst.parse_expression(f"{code(operand(qkv))}.permute(2, 0, 3, 1, 4)"),
                    star="*",
                )
            ]
        else:
            inputs = [_transposed(arg.value) for arg in updated.args[:3]]
        return _attention(inputs, options, context)

    context.edit(call, rewrite)
    return "scaled_dot_product_attention on (batch, heads, seq, dim) tensors"


def _xformers(call: cst.Call, context: FixContext) -> str:
    """memory_efficient_attention(q, k, v, attn_bias, p, scale) on (B, M, H, K) tensors."""
    bias = argument(call, 3, "attn_bias")
    causal = bias is not None and is_lower_triangular(bias.value, context.facts)

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        options = []
        dropout = argument(updated, 4, "p")
        scale = argument(updated, 5, "scale")
        if dropout is not None:
            options.append(keyword_arg("dropout_p", dropout.value))
        if scale is not None:
            options.append(keyword_arg("scale", scale.value))
        if causal:
            options.append(keyword_arg("is_causal", cst.Name("True")))
        inputs = [_transposed(arg.value) for arg in updated.args[:3]]
        return _attention(inputs, options, context)

    context.edit(call, rewrite)
    if bias is not None:
        context.release(bias.value)
    return "scaled_dot_product_attention on (batch, heads, seq, dim) tensors"


def _adam(call: cst.Call, context: FixContext) -> str:
    """FusedAdam -> torch.optim.AdamW (Adam when adam_w_mode=False), weight decay 0 as apex."""
    mode = keyword(call, "adam_w_mode")
    decoupled = mode is None or code(mode.value) == "True"
    name = "AdamW" if decoupled else "Adam"
    func = context.expression(f"torch.optim.{name}")

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        dropped = {"adam_w_mode", "bias_correction", "set_grad_none"}
        kept = [arg for arg in updated.args if not (arg.keyword and arg.keyword.value in dropped)]
        if decoupled and not any(
            arg.keyword and arg.keyword.value == "weight_decay" for arg in kept
        ):
            kept.append(keyword_arg("weight_decay", cst.Float("0.0")))
        return updated.with_changes(func=func, args=arguments(kept, updated.args))

    context.edit(call, rewrite)
    return f"use torch.optim.{name}"


def _norm(call: cst.Call, name: str, context: FixContext) -> str:
    """FusedLayerNorm/FusedRMSNorm -> torch.nn.LayerNorm/RMSNorm (eps 1e-5 as apex)."""
    func = context.expression(f"torch.nn.{name}")

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        args = list(updated.args)
        has_eps = argument(updated, 1, "eps") is not None
        if name == "RMSNorm" and not has_eps:
            args.append(keyword_arg("eps", cst.Float("1e-5")))
        return updated.with_changes(func=func, args=arguments(args, updated.args))

    context.edit(call, rewrite)
    return f"use torch.nn.{name}"
