"""Triton kernels, CUDA extensions, .cu sources and CUDA-only custom ops."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP140",
        name="triton-kernel",
        category=Category.KERNELS,
        message="A Triton kernel runs on NVIDIA/AMD GPUs only",
        explanation=(
            "`@triton.jit`/`@triton.autotune` kernels need a GPU driver (`0 active drivers ([]). "
            "There should only be one.`). Write a PyTorch reference implementation (the "
            "emulator runs it), then a Pallas kernel for TPU or an NKI kernel for Trainium; "
            "keep Triton behind `device.type in ('cuda', 'xpu')`."
        ),
        before="@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...",
        after="def add(x, y):\n    return x + y  # PyTorch reference; Pallas/NKI for speed",
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP141",
        name="triton-launch",
        category=Category.KERNELS,
        message="A Triton kernel is launched",
        explanation=(
            "`kernel[grid](...)` launches the Triton kernel on a GPU. Call the PyTorch "
            "replacement instead (see TP140)."
        ),
        before="add_kernel[grid](x, y, out, n, BLOCK=1024)",
        after="out = add(x, y)",
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP142",
        name="triton-import",
        category=Category.KERNELS,
        message="Triton is imported",
        explanation=(
            "Triton targets NVIDIA and AMD GPUs; libraries that import it at load time fail "
            "on GPU-less hosts. Import it only where the CUDA path needs it "
            "(inside a `try`/`except ImportError`)."
        ),
        before="import triton\nimport triton.language as tl",
        after="try:\n    import triton\nexcept ImportError:\n    triton = None",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP143",
        name="cuda-extension-build",
        category=Category.KERNELS,
        message="A C++/CUDA extension is compiled with nvcc",
        explanation=(
            "`cpp_extension.load(sources=[...'.cu'])`, `load_inline(cuda_sources=...)` and "
            "`CUDAExtension` need the CUDA toolkit (`CUDA_HOME environment variable is not "
            "set`). Register the op with `torch.library.custom_op` and a PyTorch/CPU "
            "implementation, then add per-device kernels (Pallas, NKI)."
        ),
        before='ext = load(name="fused", sources=["fused.cpp", "fused_kernel.cu"])',
        after='@torch.library.custom_op("mylib::fused", mutates_args=())\ndef fused(x): ...',
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP144",
        name="cuda-source",
        category=Category.KERNELS,
        message="CUDA C++ kernel source",
        explanation=(
            "`.cu`/`.cuh` files compile with nvcc for NVIDIA GPUs only. Each `__global__` "
            "kernel needs a PyTorch reference and a target kernel (Pallas, NKI)."
        ),
        before="__global__ void add_kernel(const float* x, const float* y, float* out, int n)",
        after="def add(x, y): return x + y",
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP145",
        name="cuda-only-custom-op",
        category=Category.KERNELS,
        message="A custom op is implemented for CUDA only",
        explanation=(
            "`torch.library` registrations for the 'CUDA' dispatch key leave the op without a "
            "kernel on the target (`could not run ... with arguments from the 'PrivateUse1' "
            "backend`). Add a CompositeExplicitAutograd/CPU implementation or one per target."
        ),
        before='@torch.library.impl(lib, "fused", "CUDA")',
        after='@torch.library.impl(lib, "fused", "CompositeExplicitAutograd")',
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
)
