"""Fixers for CUDA memory statistics and controls (TP080, TP081, TP084)."""

import libcst as cst

from tools.codemods.build import fit
from tools.codemods.context import FixContext
from tools.codemods.fixers.common import ACCELERATOR, guarded_call
from tools.scanner.detectors.memory import STATISTICS
from tools.scanner.site import Site


def fix_statistics(site: Site, context: FixContext) -> str:
    """TP080: torch.accelerator.memory statistics, 0 (or {}) without an accelerator."""
    call = site.node
    assert isinstance(call, cst.Call)
    assert isinstance(site.data, str)
    name = STATISTICS[site.data]
    func = context.expression(f"torch.accelerator.memory.{name}")

    def accelerator_call(updated: cst.Call) -> cst.Call:
        return updated.with_changes(func=func)

    if name.startswith("reset_"):
        guarded_call(site, context, accelerator_call)
        return f"reset torch.accelerator.memory statistics ({name})"
    fallback = "{}" if name == "memory_stats" else "0"
    parent = context.facts.parent(call)

    def read(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        template = f"{{c}} if {ACCELERATOR} else {fallback}"
        return fit(context.expression(template, c=accelerator_call(updated)), parent)

    context.edit(call, read)
    return f"read torch.accelerator.memory.{name}()"


def fix_empty_cache(site: Site, context: FixContext) -> str:
    """TP081: empty the accelerator's cache when there is one."""
    func = context.expression("torch.accelerator.memory.empty_cache")
    guarded_call(site, context, lambda updated: updated.with_changes(func=func))
    return "empty the accelerator's memory cache"


def fix_memory_limit(site: Site, context: FixContext) -> str:
    """TP084: keep the CUDA allocator limit for CUDA only."""
    line = context.facts.standalone_line(site.node)
    assert line is not None

    def guard(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.SimpleStatementLine)
        inner = updated.with_changes(leading_lines=[])
        statement = context.statement("if torch.cuda.is_available():\n    pass\n")
        assert isinstance(statement, cst.If)
        assert isinstance(statement.body, cst.IndentedBlock)
        body = statement.body.with_changes(body=[inner])
        return statement.with_changes(body=body, leading_lines=updated.leading_lines)

    context.edit(line, guard)
    return "keep the CUDA allocator limit behind a CUDA check"
