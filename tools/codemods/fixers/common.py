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


CallBuilder = Callable[[cst.Call], cst.BaseExpression]


def guarded_call(site: Site, context: FixContext, build: CallBuilder) -> None:
    """Replace a CUDA call with `build(call)` run only when an accelerator is present: a
    standalone statement becomes `if torch.accelerator.is_available(): <new call>`, a call inside
    an expression `(torch.accelerator.is_available() and <new call>)`. `build` gets the call with
    the edits inside it already made."""
    call = site.node
    line = context.facts.standalone_line(call)
    if line is not None:
        guard = context.statement(f"if {ACCELERATOR}:\n    pass\n")
        assert isinstance(guard, cst.If)
        assert isinstance(guard.body, cst.IndentedBlock)

        def as_guard(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.SimpleStatementLine)
            small = updated.body[0]
            assert isinstance(small, cst.Expr)
            assert isinstance(small.value, cst.Call)
            inner = cst.SimpleStatementLine(body=[cst.Expr(value=build(small.value))])
            body = guard.body.with_changes(body=[inner])
            return guard.with_changes(body=body, leading_lines=updated.leading_lines)

        context.edit(line, as_guard)
        return
    available = context.expression(ACCELERATOR)
    parent = context.facts.parent(call)

    def as_condition(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        both = cst.BooleanOperation(left=available, operator=cst.And(), right=build(updated))
        return fit(both, parent)

    context.edit(call, as_condition)


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
