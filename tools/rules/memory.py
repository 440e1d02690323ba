"""CUDA caching-allocator statistics and controls."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP080",
        name="cuda-memory-stats",
        category=Category.MEMORY,
        message="CUDA memory statistics need CUDA",
        explanation=(
            "`torch.cuda.memory_allocated()`, `max_memory_allocated()`, `memory_reserved()`, "
            "`memory_stats()` and `reset_peak_memory_stats()` raise without CUDA. The codemod "
            "reads `torch.accelerator.memory.*` (PyTorch 2.9+) when an accelerator is present "
            "and 0 (`{}` for `memory_stats`) otherwise. TorchTPU 0.2 has no public allocator "
            "statistics, so the numbers may be 0 there."
        ),
        before="peak = torch.cuda.max_memory_allocated()",
        after=(
            "peak = (torch.accelerator.memory.max_memory_allocated()"
            " if torch.accelerator.is_available() else 0)"
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP081",
        name="cuda-empty-cache",
        category=Category.MEMORY,
        message="`torch.cuda.empty_cache()` needs CUDA",
        explanation=(
            "The codemod calls `torch.accelerator.memory.empty_cache()` when an accelerator is "
            "present."
        ),
        before="torch.cuda.empty_cache()",
        after="if torch.accelerator.is_available():\n    torch.accelerator.memory.empty_cache()",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP082",
        name="cuda-mem-get-info",
        category=Category.MEMORY,
        message="`torch.cuda.mem_get_info()` needs CUDA",
        explanation=(
            "Free/total device memory decides batch sizes or offloading. "
            "`torch.accelerator.memory.get_memory_info()` answers on accelerators; on XLA use "
            "`xm.get_memory_info()['bytes_limit']`. What to do without an accelerator depends on "
            "the caller, so no codemod."
        ),
        before="free, total = torch.cuda.mem_get_info()",
        after="free, total = torch.accelerator.memory.get_memory_info()",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP083",
        name="cuda-memory-debug",
        category=Category.MEMORY,
        message="CUDA allocator debugging (summaries, snapshots, history) needs CUDA",
        explanation=(
            "`memory_summary()`, `memory_snapshot()`, `memory._record_memory_history()` and "
            "`list_gpu_processes()` are CUDA-allocator tools. Drop them on the target or use its "
            "profiler's memory view."
        ),
        before="print(torch.cuda.memory_summary())",
        after="print(torch.accelerator.memory.memory_stats())",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP084",
        name="cuda-memory-limit",
        category=Category.MEMORY,
        message="A CUDA allocator limit is set",
        explanation=(
            "`torch.cuda.set_per_process_memory_fraction()` limits CUDA's caching allocator "
            "only. The codemod keeps it for CUDA behind `if torch.cuda.is_available():`; the "
            "target's memory budget is set by its runtime."
        ),
        before="torch.cuda.set_per_process_memory_fraction(0.5)",
        after="if torch.cuda.is_available():\n    torch.cuda.set_per_process_memory_fraction(0.5)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
)
