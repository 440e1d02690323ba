"""Fixers for float64 and float16 on bf16-native targets (TP170-TP172)."""

import libcst as cst

from tools.codemods.build import with_keyword
from tools.codemods.context import FixContext
from tools.scanner.site import Site


def fix_float64(site: Site, context: FixContext) -> str:
    """TP170: float32 instead of float64."""
    return _retype(site, context, method="float", dtype="float32")


def fix_float16(site: Site, context: FixContext) -> str:
    """TP172: bfloat16 instead of float16."""
    return _retype(site, context, method=None, dtype="bfloat16")


def _retype(site: Site, context: FixContext, *, method: str | None, dtype: str) -> str:
    node = site.node
    if isinstance(node, cst.Call):  # .double() / .half()
        if method is not None:
            context.edit(node, lambda updated: _rename_method(updated, method))
            return f"use .{method}()"
        new_to = context.expression(f"torch.{dtype}")
        context.edit(node, lambda updated: _to_dtype(updated, new_to))
        return f"use .to(torch.{dtype})"
    if isinstance(node, cst.Attribute):
        context.edit(node, lambda updated: updated.with_changes(attr=cst.Name(dtype)))
    else:
        new = context.expression(f"torch.{dtype}")
        context.edit(node, lambda updated: new)
        context.release(node)
    return f"use torch.{dtype}"


def _rename_method(call: cst.CSTNode, method: str) -> cst.CSTNode:
    assert isinstance(call, cst.Call)
    assert isinstance(call.func, cst.Attribute)
    return call.with_changes(func=call.func.with_changes(attr=cst.Name(method)))


def _to_dtype(call: cst.CSTNode, dtype: cst.BaseExpression) -> cst.CSTNode:
    assert isinstance(call, cst.Call)
    assert isinstance(call.func, cst.Attribute)
    return call.with_changes(
        func=call.func.with_changes(attr=cst.Name("to")), args=[cst.Arg(value=dtype)]
    )


def fix_numpy_float64(site: Site, context: FixContext) -> str:
    """TP171: convert NumPy's float64 to float32 at the host boundary."""
    if site.data == "torch.from_numpy":
        context.edit(
            site.node,
            lambda updated: cst.Call(func=cst.Attribute(value=updated, attr=cst.Name("float"))),  # type: ignore[arg-type]
        )
        return "convert the NumPy array to float32"
    dtype = context.expression("torch.float32")
    context.edit(site.node, lambda updated: with_keyword(updated, "dtype", dtype))  # type: ignore[arg-type]
    return "create the tensor as float32"
