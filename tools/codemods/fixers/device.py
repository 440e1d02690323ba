"""Fixers for the device rules (TP001-TP010)."""

import libcst as cst

from tools.codemods.build import arguments, fit, statement_line
from tools.codemods.context import FixContext
from tools.codemods.fixers.common import (
    ACCELERATOR,
    device_object,
    device_string,
    guarded_call,
    target_dtype,
)
from tools.scanner.detectors.device import TYPED_TENSORS
from tools.scanner.detectors.selection import Selection, StatementSelection
from tools.scanner.patterns import CudaString, cuda_string, keyword, positional
from tools.scanner.site import Site
from tools.scanner.strings import StringUse, Use

CURRENT_ACCELERATOR = (
    'torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")'
)


def fix_selection(site: Site, context: FixContext) -> str:
    """TP001: pick the current accelerator (else the CPU) instead of CUDA-or-CPU."""
    if isinstance(site.data, StatementSelection):
        return _fix_statement_selection(site.data, context)
    assert isinstance(site.data, Selection)
    found = site.data.cuda
    if isinstance(site.node, cst.Call):  # torch.device("cuda" if ... else "cpu")
        if found.index is None and found.index_expression is None:
            new = context.expression(CURRENT_ACCELERATOR)
        else:
            new = device_object(found, site.node, context)
    else:  # the bare "cuda" if ... else "cpu" string
        new = device_string(found, site.node, context)
    parent = context.facts.parent(site.node)
    context.edit(site.node, lambda updated: fit(new, parent))
    return "choose the current accelerator, else the CPU"


def _fix_statement_selection(found: StatementSelection, context: FixContext) -> str:
    if found.wrapped and found.cuda.index is None and found.cuda.index_expression is None:
        value = context.expression(CURRENT_ACCELERATOR)
    elif found.wrapped:
        value = device_object(found.cuda, found.statement, context)
    else:
        value = device_string(found.cuda, found.statement, context)
    assign = cst.Assign(targets=[cst.AssignTarget(target=found.target)], value=value)

    def replace(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.If)
        return statement_line(assign).with_changes(leading_lines=updated.leading_lines)

    context.edit(found.statement, replace)
    return "choose the current accelerator, else the CPU"


def fix_cuda_method(site: Site, context: FixContext) -> str:
    """TP002: `x.cuda(i, non_blocking=True)` -> `x.to(torch.device(DEVICE.type, i), ...)`.

    Inside a `map_location=` lambda the receiver is a storage, whose `.to()` takes the device
    only by keyword: `storage.cuda(0)` -> `storage.to(device=torch.device(DEVICE.type, 0))`.
    """
    call = site.node
    assert isinstance(call, cst.Call)
    index_arg = positional(call, 0) or keyword(call, "device")
    position = next((n for n, arg in enumerate(call.args) if arg is index_arg), None)
    device = context.device(call)
    device_keyword = cst.Name("device") if _in_map_location(call, context) else None

    def to_device(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        assert isinstance(updated.func, cst.Attribute)
        target: cst.BaseExpression = device
        if position is not None:
            kind = cst.Attribute(value=device, attr=cst.Name("type"))
            index = updated.args[position].value
            target = context.expression("torch.device({kind}, {i})", kind=kind, i=index)
        rest = [arg for n, arg in enumerate(updated.args) if n != position]
        first = cst.Arg(value=target, keyword=device_keyword)
        if device_keyword is not None:
            first = first.with_changes(
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
            )
        args = arguments([first, *rest], updated.args)
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("to")), args=args)

    context.edit(call, to_device)
    return "move to the selected device with .to()"


def _in_map_location(node: cst.CSTNode, context: FixContext) -> bool:
    """Whether `node` is in a lambda passed as `map_location=` (its receiver is a storage)."""
    current: cst.CSTNode | None = node
    while current is not None:
        parent = context.facts.parent(current)
        if isinstance(current, cst.Lambda) and isinstance(parent, cst.Arg):
            return parent.keyword is not None and parent.keyword.value == "map_location"
        current = parent
    return False


def fix_device_string(site: Site, context: FixContext) -> str:
    """TP003: a "cuda" device string becomes the selected device (or its type)."""
    use, found = site.data
    assert isinstance(use, StringUse)
    assert isinstance(found, CudaString)
    node = site.node
    if use.use is Use.DEVICE_CALL:
        return _fix_device_call(use.anchor, found, node, context)

    def replace(updated: cst.CSTNode) -> cst.CSTNode:
        now = cuda_string(updated) or found  # the f-string's index may have been rewritten
        if use.use is Use.DEVICE_ARG:
            return device_object(now, node, context)
        if use.use is Use.DEVICE_TYPE:
            return context.device_type(node)
        return device_string(now, node, context)

    context.edit(node, replace)
    return 'use the selected device instead of "cuda"'


def _fix_device_call(
    call: cst.CSTNode, found: CudaString, string: cst.CSTNode, context: FixContext
) -> str:
    assert isinstance(call, cst.Call)
    parent = context.facts.parent(call)
    if len(call.args) == 1:  # torch.device("cuda"), torch.device("cuda:1"), f"cuda:{i}"

        def replace(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            now = cuda_string(updated.args[0].value) or found
            return fit(device_object(now, call, context), parent)

        context.edit(call, replace)
    else:  # torch.device("cuda", index)
        kind = context.device_type(string)
        context.edit(string, lambda updated: kind)
    return 'use the selected device instead of "cuda"'


def fix_accelerator_check(site: Site, context: FixContext) -> str:
    """TP004 (as `pin_memory=`/`enabled=`): is there an accelerator, not is there CUDA."""
    new = context.expression(ACCELERATOR)
    context.edit(site.node, lambda updated: new)
    return "ask whether an accelerator is available"


def fix_device_query(site: Site, context: FixContext) -> str:
    """TP005-TP008: torch.cuda device queries become torch.accelerator ones."""
    call = site.node
    assert isinstance(call, cst.Call)
    qualified = context.facts.qname(call)
    parent = context.facts.parent(call)
    if qualified == "torch.cuda.device_count":
        new = context.expression("torch.accelerator.device_count()")
        context.edit(call, lambda updated: new)
        return "count the accelerator's devices"
    if qualified == "torch.cuda.set_device":
        func = context.expression("torch.accelerator.set_device_index")
        guarded_call(site, context, lambda updated: updated.with_changes(func=func))
        return "select the device index on the accelerator"
    if qualified == "torch.cuda.current_device":
        expression = f"torch.accelerator.current_device_index() if {ACCELERATOR} else 0"
        new = context.expression(expression)
        context.edit(call, lambda updated: fit(new, parent))
        return "read the accelerator's current device index"
    template = f"torch.accelerator.device_index({{i}} if {ACCELERATOR} else None)"

    def enter(updated: cst.CSTNode) -> cst.CSTNode:  # torch.cuda.device(i) in a with statement
        assert isinstance(updated, cst.Call)
        return context.expression(template, i=updated.args[0].value)

    context.edit(call, enter)
    return "enter the accelerator's device index"


def fix_tensor_type(site: Site, context: FixContext) -> str:
    """TP010: legacy torch.cuda.*Tensor casts and default tensor types."""
    call = site.node
    assert isinstance(call, cst.Call)
    assert isinstance(site.data, str)
    dtype = context.expression(f"torch.{target_dtype(TYPED_TENSORS[site.data], context)}")
    device = context.device(call)
    if context.facts.qname(call) == "torch.set_default_tensor_type":
        line = context.facts.standalone_line(call)
        assert line is not None
        device_line = context.statement("torch.set_default_device({d})\n", d=device)
        dtype_line = context.statement("torch.set_default_dtype({t})\n", t=dtype)

        def split(updated: cst.CSTNode) -> cst.FlattenSentinel[cst.CSTNode]:
            assert isinstance(updated, cst.SimpleStatementLine)
            first = device_line.with_changes(leading_lines=updated.leading_lines)
            return cst.FlattenSentinel([first, dtype_line])

        context.edit(line, split)
        return "set the default device and dtype"

    def cast(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        assert isinstance(updated.func, cst.Attribute)
        args = arguments([cst.Arg(value=device), cst.Arg(value=dtype)])
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("to")), args=args)

    context.edit(call, cast)
    return "cast with .to(device, dtype)"
