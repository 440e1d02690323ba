"""Detectors for synchronisation, events, streams, NVTX, graphs, profiler (TP060-TP065)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import chain, claim_callee
from tools.scanner.facts import ModuleFacts
from tools.scanner.groups import EVENT_CLASSES, event_groups
from tools.scanner.patterns import keyword, method_call, string_value
from tools.scanner.site import Site, site

STREAMS = frozenset(
    f"torch.cuda.{name}"
    for name in (
        "Stream",
        "stream",
        "current_stream",
        "default_stream",
        "set_stream",
        "ExternalStream",
        "StreamContext",
        "streams.Stream",
    )
)
GRAPHS = frozenset(
    f"torch.cuda.{name}"
    for name in ("CUDAGraph", "graph", "make_graphed_callables", "graph_pool_handle")
)
PROFILERS = frozenset({"torch.autograd.profiler.profile", "torch.profiler.profile"})
CUDA_ACTIVITY = frozenset(
    {
        "torch.profiler.ProfilerActivity.CUDA",
        "torch.autograd.ProfilerActivity.CUDA",
        "torch.autograd.profiler.ProfilerActivity.CUDA",
    }
)


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """torch.cuda synchronisation, events, streams, NVTX, graphs and profiler options."""
    if facts.is_claimed(call):
        return
    qualified = facts.qname(call) or ""
    if qualified == "torch.cuda.synchronize":
        claim_callee(call, facts)
        yield site("TP060", call)
    elif qualified in EVENT_CLASSES:
        claim_callee(call, facts)
        group = event_groups(facts)[call]
        yield site("TP061", call, fixable=group.rewritable, data=group)
    elif qualified in STREAMS or method_call(call, "record_stream"):
        claim_callee(call, facts)
        yield site("TP062", call)
    elif qualified.startswith("torch.cuda.nvtx."):
        claim_callee(call, facts)
        in_with = isinstance(facts.parent(call), cst.WithItem)
        yield site("TP063", call, fixable=qualified == "torch.cuda.nvtx.range" and in_with)
    elif qualified in GRAPHS or qualified.startswith("torch.cuda.graphs."):
        claim_callee(call, facts)
        yield site("TP064", call)
    elif qualified.startswith("torch.cuda.profiler."):
        claim_callee(call, facts)
        yield site("TP065", call)
    elif qualified in PROFILERS:
        yield from _profiler_options(call, facts)


def _profiler_options(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    use_cuda = keyword(call, "use_cuda")
    use_device = keyword(call, "use_device")
    if use_cuda is not None and code_of(use_cuda.value) == "True":
        yield site("TP065", use_cuda.value)
    if use_device is not None and string_value(use_device.value) == "cuda":
        facts.claim(use_device.value)
        yield site("TP065", use_device.value)


def code_of(node: cst.CSTNode) -> str:
    """Source text of a node."""
    return cst.Module([]).code_for_node(node)


def on_attribute(node: cst.Attribute, facts: ModuleFacts) -> Iterator[Site]:
    """`ProfilerActivity.CUDA`."""
    if not facts.is_claimed(node) and facts.qname(node) in CUDA_ACTIVITY:
        facts.claim(*chain(node))
        yield site("TP065", node)
