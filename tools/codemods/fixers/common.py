"""Rewrites several fixers share: guarded calls, device expressions, dtype policy."""

from collections.abc import Callable

import libcst as cst

from tools.codemods.build import fit
from tools.codemods.context import FixContext
from tools.scanner.patterns import CudaString
from tools.scanner.site import Site

Fixer = Callable[[Site, FixContext], str]

ACCELERATOR = "torch.accelerator.is_available()"
# dtype names a rewrite may produce, mapped by the bf16 targets' policy.
BF16_POLICY = {"float64": "float32", "float16": "bfloat16"}


def target_dtype(name: str, context: FixContext) -> str:
    """`float32` for `float64` on tpu/neuron (and bf16 for fp16); unchanged for agnostic."""
    return BF16_POLICY.get(name, name) if context.bf16_target else name


def guarded_call(
    call_template: str, site: Site, context: FixContext, **nodes: cst.BaseExpression
) -> None:
    """Replace a standalone call statement with `if torch.accelerator.is_available(): <call>`, or
    a call inside a larger expression with `(torch.accelerator.is_available() and <call>)`."""
    call = site.node
    line = context.facts.standalone_line(call)
    if line is not None:
        guarded = context.statement(f"if {ACCELERATOR}:\n    {call_template}\n", **nodes)

        def as_guard(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.SimpleStatementLine)
            return guarded.with_changes(leading_lines=updated.leading_lines)

        context.edit(line, as_guard)
        return
    expression = context.expression(f"{ACCELERATOR} and {call_template}", **nodes)
    parent = context.facts.parent(call)
    context.edit(call, lambda updated: fit(expression, parent))


def device_object(found: CudaString, at: cst.CSTNode, context: FixContext) -> cst.BaseExpression:
    """`DEVICE` for "cuda", `torch.device(DEVICE.type, 1)` for "cuda:1" or f"cuda:{i}"."""
    device = context.device(at)
    index = _index(found)
    if index is None:
        return device
    return context.expression("torch.device({kind}, {index})", kind=_type_of(device), index=index)


def device_string(found: CudaString, at: cst.CSTNode, context: FixContext) -> cst.BaseExpression:
    """`DEVICE.type` for "cuda", `f"{DEVICE.type}:1"` for "cuda:1" (still a str)."""
    kind = context.device_type(at)
    index = _index(found)
    if index is None:
        return kind
    node = found.node
    quote = node.quote if isinstance(node, cst.SimpleString) else node.end
    prefix = "f" if isinstance(node, cst.SimpleString) else node.start[: -len(quote)]
    parts: list[cst.BaseFormattedStringContent] = [
        cst.FormattedStringExpression(expression=kind),
        cst.FormattedStringText(":"),
        cst.FormattedStringExpression(expression=index)
        if found.index_expression is not None
        else cst.FormattedStringText(found.index or ""),
    ]
    return cst.FormattedString(parts=parts, start=f"{prefix}{quote}", end=quote)


def _index(found: CudaString) -> cst.BaseExpression | None:
    if found.index_expression is not None:
        return found.index_expression
    if found.index is not None:
        return cst.Integer(found.index)
    return None


def _type_of(device: cst.BaseExpression) -> cst.BaseExpression:
    return cst.Attribute(value=device, attr=cst.Name("type"))
