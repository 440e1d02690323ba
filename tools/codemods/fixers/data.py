"""Fixers for pinned memory (TP090, TP091)."""

import libcst as cst

from tools.codemods.build import fit, without_keywords
from tools.codemods.context import FixContext
from tools.codemods.fixers.common import ACCELERATOR
from tools.scanner.site import Site


def fix_pin_memory_flag(site: Site, context: FixContext) -> str:
    """TP090: pin only when an accelerator is present; drop `pin_memory_device`."""
    if isinstance(site.node, cst.Name):  # pin_memory=True
        new = context.expression(ACCELERATOR)
        context.edit(site.node, lambda updated: new)
        return "pin memory only when an accelerator is present"
    call = site.data
    assert isinstance(call, cst.Call)
    context.edit(call, lambda updated: without_keywords(updated, "pin_memory_device"))  # type: ignore[arg-type]
    return "pin for the current accelerator (drop pin_memory_device)"


def fix_pin_memory_call(site: Site, context: FixContext) -> str:
    """TP091: `x.pin_memory()` only when an accelerator is present."""
    call = site.node
    assert isinstance(call, cst.Call)
    assert isinstance(call.func, cst.Attribute)
    parent = context.facts.parent(call)

    def pin(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        assert isinstance(updated.func, cst.Attribute)
        template = f"{{call}} if {ACCELERATOR} else {{x}}"
        return fit(context.expression(template, call=updated, x=updated.func.value), parent)

    context.edit(call, pin)
    return "pin memory only when an accelerator is present"
