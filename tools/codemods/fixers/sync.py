"""Fixers for synchronisation, timing events and NVTX (TP060, TP061, TP063)."""

import libcst as cst

from tools.codemods.build import fit
from tools.codemods.context import Edit, FixContext
from tools.codemods.fixers.common import ACCELERATOR, guarded_call
from tools.scanner.groups import ObjectGroup
from tools.scanner.patterns import positional
from tools.scanner.site import Site

SYNC = "torch.accelerator.synchronize()"


def fix_synchronize(site: Site, context: FixContext) -> str:
    """TP060: synchronise the accelerator when there is one."""
    call = site.node
    assert isinstance(call, cst.Call)
    func = context.expression("torch.accelerator.synchronize")
    guarded_call(site, context, lambda updated: updated.with_changes(func=func))
    return "synchronise the accelerator"


def fix_event(site: Site, context: FixContext) -> str:
    """TP061: a CUDA timing event becomes a `time.perf_counter()` stamp after a sync."""
    group = site.data
    assert isinstance(group, ObjectGroup)
    assert group.statement is not None
    assert group.name
    context.add_import("time")
    context.remove_line(group.statement)
    name = group.name
    for use in group.uses:
        if use.method == "record":
            assert use.line is not None
            _stamp(use.line, name, context)
        elif use.method == "synchronize":
            assert use.line is not None
            sync = context.statement(f"if {ACCELERATOR}:\n    {SYNC}\n")
            context.edit(use.line, _keeping_lines(sync))
        elif use.method == "elapsed_time":
            other = positional(use.call, 0)
            assert other is not None
            assert isinstance(other.value, cst.Name)
            elapsed = cst.parse_expression(f"({other.value.value} - {name}) * 1000.0")
            context.edit(use.call, _replacement(elapsed, context.facts.parent(use.call)))
    return "time with time.perf_counter() after a device sync"


def _replacement(new: cst.BaseExpression, parent: cst.CSTNode | None) -> Edit:
    return lambda updated: fit(new, parent)


def _stamp(line: cst.SimpleStatementLine, name: str, context: FixContext) -> None:
    sync = context.statement(f"if {ACCELERATOR}:\n    {SYNC}\n")
    stamp = cst.parse_statement(f"{name} = time.perf_counter()\n")

    def replace(updated: cst.CSTNode) -> cst.FlattenSentinel[cst.CSTNode]:
        assert isinstance(updated, cst.SimpleStatementLine)
        return cst.FlattenSentinel([sync.with_changes(leading_lines=updated.leading_lines), stamp])

    context.edit(line, replace)


def _keeping_lines(new: cst.BaseStatement) -> Edit:
    def replace(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.SimpleStatementLine)
        return new.with_changes(leading_lines=updated.leading_lines)

    return replace


def fix_nvtx(site: Site, context: FixContext) -> str:
    """TP063: `with torch.cuda.nvtx.range(name):` -> `torch.profiler.record_function(name)`."""
    func = context.expression("torch.profiler.record_function")
    context.edit(site.node, lambda updated: updated.with_changes(func=func))
    context.release(site.node)
    return "mark the range with torch.profiler.record_function"
