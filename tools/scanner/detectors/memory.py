"""Detectors for CUDA memory statistics and controls (TP080-TP084)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import claim_callee
from tools.scanner.facts import ModuleFacts
from tools.scanner.site import Site, site

# torch.cuda name -> the torch.accelerator.memory name it becomes (TP080).
STATISTICS = {
    "memory_allocated": "memory_allocated",
    "max_memory_allocated": "max_memory_allocated",
    "memory_reserved": "memory_reserved",
    "max_memory_reserved": "max_memory_reserved",
    "memory_cached": "memory_reserved",
    "max_memory_cached": "max_memory_reserved",
    "memory_stats": "memory_stats",
    "reset_peak_memory_stats": "reset_peak_memory_stats",
    "reset_max_memory_allocated": "reset_peak_memory_stats",
    "reset_max_memory_cached": "reset_peak_memory_stats",
    "reset_accumulated_memory_stats": "reset_accumulated_memory_stats",
}
DEBUGGING = frozenset(
    {
        "memory_summary",
        "memory_snapshot",
        "list_gpu_processes",
        "memory._record_memory_history",
        "memory._dump_snapshot",
        "memory._snapshot",
        "_record_memory_history",
    }
)
LIMITS = frozenset({"set_per_process_memory_fraction", "memory.set_per_process_memory_fraction"})


def cuda_memory_name(qualified: str) -> str | None:
    """`max_memory_allocated` for torch.cuda.max_memory_allocated or torch.cuda.memory.…"""
    for prefix in ("torch.cuda.memory.", "torch.cuda."):
        if qualified.startswith(prefix):
            return qualified.removeprefix(prefix)
    return None


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """Memory statistics, empty_cache, mem_get_info, debugging and limits."""
    if facts.is_claimed(call):
        return
    qualified = facts.qname(call) or ""
    name = cuda_memory_name(qualified)
    full = qualified.removeprefix("torch.cuda.")
    if name is None:
        return
    if name in STATISTICS:
        statement_only = name.startswith("reset_")
        fixable = not statement_only or facts.standalone_line(call) is not None
        code, fix = "TP080", fixable
    elif name == "empty_cache":
        code, fix = "TP081", True
    elif name == "mem_get_info":
        code, fix = "TP082", False
    elif full in DEBUGGING or name in DEBUGGING:
        code, fix = "TP083", False
    elif full in LIMITS or name in LIMITS:
        code, fix = "TP084", facts.standalone_line(call) is not None
    else:
        return
    claim_callee(call, facts)
    yield site(code, call, fixable=fix, data=name)
