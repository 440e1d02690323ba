"""Fixers for CUDA seeds and generators (TP020, TP021)."""

import libcst as cst

from tools.codemods.build import code
from tools.codemods.context import FixContext
from tools.scanner.site import Site


def fix_manual_seed(site: Site, context: FixContext) -> str:
    """TP020: drop a CUDA seed that repeats `torch.manual_seed(s)`, else seed every device."""
    call = site.node
    assert isinstance(call, cst.Call)
    line = context.facts.standalone_line(call)
    seed = code(call.args[0].value)
    if line is not None and _seeded_nearby(line, seed, context):
        context.remove_line(line)
        return "drop the CUDA seed: torch.manual_seed already seeds every device"
    new_func = context.expression("torch.manual_seed")
    context.edit(call, lambda updated: updated.with_changes(func=new_func))
    context.release(call.func)
    return "seed every device with torch.manual_seed"


def _seeded_nearby(line: cst.SimpleStatementLine, seed: str, context: FixContext) -> bool:
    """Whether the same block calls `torch.manual_seed(<seed>)` as a statement."""
    found = context.facts.block_of(line)
    if found is None:
        return False
    body, _ = found
    for statement in body.body:
        if statement is line or not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = small.value if isinstance(small, cst.Expr) else None
            if (
                isinstance(value, cst.Call)
                and context.facts.qname(value) == "torch.manual_seed"
                and len(value.args) == 1
                and code(value.args[0].value) == seed
            ):
                return True
    return False


def fix_generator(site: Site, context: FixContext) -> str:
    """TP021: create the generator on the selected device."""
    device_arg = site.data
    assert isinstance(device_arg, cst.Arg)
    device = context.device(site.node)
    context.edit(device_arg.value, lambda updated: device)
    return "create the generator on the selected device"
