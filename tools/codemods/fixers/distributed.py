"""Fixers for torch.distributed (TP100, TP101, TP106)."""

import libcst as cst

from tools.codemods.context import FixContext
from tools.scanner.site import Site
from tools.scanner.strings import StringUse


def fix_nccl(site: Site, context: FixContext) -> str:
    """TP100: the default process-group backend for the selected device."""
    use = site.data
    assert isinstance(use, StringUse)
    prefix = _distributed_name(use.anchor, context)
    device = context.device(site.node)
    new = context.expression(f"{prefix}.get_default_backend_for_device({{d}})", d=device)
    context.edit(site.node, lambda updated: new)
    return "use the device's default process-group backend"


def _distributed_name(anchor: cst.CSTNode, context: FixContext) -> str:
    """`dist` when the call is `dist.init_process_group`, else the module's alias or the path."""
    callee = anchor.func if isinstance(anchor, cst.Call) else None
    if (
        isinstance(callee, cst.Attribute)
        and context.facts.qname(callee.value) == "torch.distributed"
    ):
        return cst.Module([]).code_for_node(callee.value)
    return context.module_alias("torch.distributed") or f"{context.torch()}.distributed"


def fix_ddp_device_ids(site: Site, context: FixContext) -> str:
    """TP101: pass device ids to DDP on CUDA only."""
    kind = context.device_type(site.node)
    for arg in site.data:
        assert isinstance(arg, cst.Arg)
        new = context.expression('{v} if {k} == "cuda" else None', v=arg.value, k=kind)
        context.edit(arg.value, lambda updated, n=new: n.with_changes(body=updated))  # type: ignore[misc]
    return "pass DDP device ids on CUDA only"


def fix_nccl_environment(site: Site, context: FixContext) -> str:
    """TP106: drop an NCCL environment variable (no NCCL on the target)."""
    assert isinstance(site.data, cst.SimpleStatementLine)
    context.remove_line(site.data)
    return "drop an NCCL setting"
