"""Synchronisation, timing events, streams, NVTX, CUDA graphs and the CUDA profiler."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP060",
        name="cuda-synchronize",
        category=Category.SYNC,
        message="`torch.cuda.synchronize()` needs CUDA",
        explanation=(
            "Raises without CUDA; TorchTPU also forbids `torch.tpu.synchronize`. The codemod "
            "calls `torch.accelerator.synchronize()` when an accelerator is present (the call "
            "raises on a CPU-only machine)."
        ),
        before="torch.cuda.synchronize()",
        after="if torch.accelerator.is_available():\n    torch.accelerator.synchronize()",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP061",
        name="cuda-event-timing",
        category=Category.SYNC,
        message="CUDA events time the code; the target has no CUDA events",
        explanation=(
            "`torch.cuda.Event(enable_timing=True)` needs CUDA, and `torch.Event` does not "
            "record on the CPU. The codemod times with `time.perf_counter()` after a device "
            "synchronisation: `ev.record()` becomes a sync and `ev = time.perf_counter()`, "
            "`a.elapsed_time(b)` becomes `(b - a) * 1000.0` (milliseconds, as before). It "
            "declines events used any other way (waits, queries, streams)."
        ),
        before=(
            "start = torch.cuda.Event(enable_timing=True)\n"
            "start.record()\n"
            "...\n"
            "ms = start.elapsed_time(end)"
        ),
        after="start = time.perf_counter()\n...\nms = (end - start) * 1000.0",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP062",
        name="cuda-stream",
        category=Category.SYNC,
        message="CUDA streams schedule work the target schedules itself",
        explanation=(
            "`torch.cuda.Stream`, `torch.cuda.stream(s)`, `wait_stream` and `record_stream` "
            "need CUDA. XLA-based stacks have no user streams; TorchTPU offers experimental "
            "`torch.Stream`. Rewrite with `torch.Stream(device=...)` and "
            "`torch.accelerator.current_stream()` where the target supports streams, or drop "
            "the overlap; `record_stream` lifetimes need judgement."
        ),
        before="s = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n    y = f(x)",
        after="y = f(x)",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP063",
        name="nvtx-range",
        category=Category.SYNC,
        message="NVTX ranges need CUDA",
        explanation=(
            "`torch.cuda.nvtx` marks ranges for NVIDIA's profilers. The codemod turns "
            "`with torch.cuda.nvtx.range(name):` into `with torch.profiler.record_function(name):`"
            ", which every backend's profiler records. `range_push`/`range_pop` pairs and "
            "`mark` are left for a person."
        ),
        before='with torch.cuda.nvtx.range("forward"):',
        after='with torch.profiler.record_function("forward"):',
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP064",
        name="cuda-graph",
        category=Category.SYNC,
        message="CUDA graphs capture and replay CUDA work",
        explanation=(
            "`torch.cuda.CUDAGraph`, `torch.cuda.graph(...)` and `make_graphed_callables` have "
            "no equivalent on XLA/TorchTPU (the step is already compiled) nor in TorchNeuron's "
            "first release. Remove the capture or keep it behind `device.type == 'cuda'`."
        ),
        before="g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    y = model(x)",
        after="y = model(x)",
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP065",
        name="cuda-profiler",
        category=Category.SYNC,
        message="The profiler is asked for CUDA activity",
        explanation=(
            "`ProfilerActivity.CUDA`, `use_cuda=True` and `torch.cuda.profiler` record nothing "
            "on the target. Profile the target with `torch.profiler` and its own activity "
            "(TorchTPU registers a Kineto backend), or `torch_xla.debug.profiler` on XLA."
        ),
        before="activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
        after="activities=[ProfilerActivity.CPU]",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.WARNING,
    ),
)
