"""Fixers for mixed precision (TP030-TP034)."""

import libcst as cst

from tools.codemods.build import arguments, code, fit, keyword_arg, operand, with_keyword
from tools.codemods.context import FixContext
from tools.scanner.detectors.amp import CUDA_AUTOCAST
from tools.scanner.groups import ObjectGroup
from tools.scanner.patterns import argument, positional
from tools.scanner.site import Site

CUDA_AUTOCAST_PARAMETERS = ("enabled", "dtype", "cache_enabled")


def fix_autocast(site: Site, context: FixContext) -> str:
    """TP030: `torch.amp.autocast(device_type=DEVICE.type, ...)`, bf16 on tpu/neuron."""
    call = site.node
    assert isinstance(call, cst.Call)
    kind = context.device_type(call)
    bf16 = context.expression("torch.bfloat16") if context.bf16_target else None
    if context.facts.qname(call) in CUDA_AUTOCAST:
        func = context.expression("torch.amp.autocast")

        def generic(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            named = [_named(arg, index) for index, arg in enumerate(updated.args)]
            args = arguments([keyword_arg("device_type", kind), *named], updated.args)
            new = updated.with_changes(func=func, args=args)
            return with_keyword(new, "dtype", bf16) if bf16 is not None else new

        context.edit(call, generic)
        context.release(call.func)
    else:
        device = argument(call, 0, "device_type")
        assert device is not None
        context.edit(device.value, lambda updated: kind)
        if bf16 is not None:
            context.edit(call, lambda updated: _with_dtype(updated, bf16))
    dtype = " with bfloat16" if bf16 is not None else ""
    return f"autocast on the selected device{dtype}"


def _named(arg: cst.Arg, index: int) -> cst.Arg:
    """torch.cuda.amp.autocast's positional arguments as keywords."""
    if arg.keyword is not None:
        return arg
    return keyword_arg(CUDA_AUTOCAST_PARAMETERS[index], arg.value)


def _with_dtype(call: cst.CSTNode, dtype: cst.BaseExpression) -> cst.CSTNode:
    """Set the dtype of a generic autocast (given by position or keyword)."""
    assert isinstance(call, cst.Call)
    second = positional(call, 1)
    if second is not None:
        return call.with_changes(
            args=[arg.with_changes(value=dtype) if arg is second else arg for arg in call.args]
        )
    return with_keyword(call, "dtype", dtype)


def fix_fp16_autocast(site: Site, context: FixContext) -> str:
    """TP031: autocast to bfloat16 on tpu/neuron."""
    bf16 = context.expression("torch.bfloat16")
    context.edit(site.node, lambda updated: _with_dtype(updated, bf16))
    return "autocast to bfloat16"


def fix_scaler(site: Site, context: FixContext) -> str:
    """TP032: remove the GradScaler (tpu/neuron) or bind it to the selected device (agnostic)."""
    group = site.data
    assert isinstance(group, ObjectGroup)
    call = site.node
    assert isinstance(call, cst.Call)
    if context.bf16_target:
        assert group.statement is not None
        context.remove_line(group.statement)
        context.release(call.func)
        return "remove the GradScaler: bf16 needs no loss scaling"
    kind = context.device_type(call)
    if context.facts.qname(call) in ("torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"):
        device = argument(call, 0, "device")
        if device is not None:
            context.edit(device.value, lambda updated: kind)
            return "create the GradScaler for the selected device"
    func = context.expression("torch.amp.GradScaler")

    def bind(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        args = arguments([cst.Arg(value=kind), *updated.args], updated.args)
        return updated.with_changes(func=func, args=args)

    context.edit(call, bind)
    context.release(call.func)
    return "create the GradScaler for the selected device"


def fix_scaler_call(site: Site, context: FixContext) -> str:
    """TP033: rewrite one GradScaler call while the scaler is removed (tpu/neuron)."""
    group = site.data
    assert isinstance(group, ObjectGroup)
    use = next(use for use in group.uses if use.call is site.node)
    parent = context.facts.parent(use.call)
    if use.line is not None and use.method in ("update", "unscale_", "load_state_dict"):
        context.remove_line(use.line)
        return f"drop scaler.{use.method}()"
    if use.method == "scale":
        context.edit(use.call, lambda updated: fit(_first(updated), parent))
        return "backward on the unscaled loss"
    if use.method == "step":
        context.edit(use.call, _optimizer_step)
        return "step the optimizer directly"
    constants = {"get_scale": "1.0", "is_enabled": "False", "state_dict": "{}"}
    new = cst.parse_expression(constants[use.method])
    context.edit(use.call, lambda updated: new)
    return f"replace scaler.{use.method}() by its value without scaling"


def _first(call: cst.CSTNode) -> cst.BaseExpression:
    assert isinstance(call, cst.Call)
    return call.args[0].value


def _optimizer_step(updated: cst.CSTNode) -> cst.CSTNode:
    """`scaler.step(optimizer, *rest)` -> `optimizer.step(*rest)`."""
    assert isinstance(updated, cst.Call)
    optimizer = operand(updated.args[0].value)
    rest = arguments(list(updated.args[1:]), updated.args[1:])
    return cst.Call(func=cst.Attribute(value=optimizer, attr=cst.Name("step")), args=rest)


def fix_custom_fwd(site: Site, context: FixContext) -> str:
    """TP034: `torch.amp.custom_fwd/custom_bwd(device_type=DEVICE.type, ...)`."""
    node = site.node
    name = "custom_fwd" if "custom_fwd" in (context.facts.qname(node) or "") else "custom_bwd"
    func = context.expression(f"torch.amp.{name}")
    kind = context.device_type(node)
    bf16 = context.expression("torch.bfloat16") if context.bf16_target else None

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        old_args = list(updated.args) if isinstance(updated, cst.Call) else []
        args = arguments([keyword_arg("device_type", kind), *old_args], old_args)
        new = cst.Call(func=func, args=args)
        cast = next(
            (arg for arg in args if arg.keyword and arg.keyword.value == "cast_inputs"), None
        )
        if bf16 is not None and cast is not None and _is_half(cast.value, context):
            new = with_keyword(new, "cast_inputs", bf16)
        return new

    context.edit(node, rewrite)
    context.release(node)
    return f"use torch.amp.{name} for the selected device"


def _is_half(node: cst.BaseExpression, context: FixContext) -> bool:
    return code(node).endswith(("float16", "half"))
