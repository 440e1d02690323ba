"""cuDNN, TF32, SDPA-kernel and cuBLAS switches."""

from tools.rules.model import ACCELERATORS, ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP050",
        name="cudnn-flags",
        category=Category.BACKEND_FLAGS,
        message="cuDNN flags have no effect off CUDA",
        explanation=(
            "TPU and Trainium have no cuDNN: `torch.backends.cudnn.benchmark/enabled` do "
            "nothing there. The codemod deletes them for tpu/neuron and turns "
            "`cudnn.deterministic = X` into `torch.use_deterministic_algorithms(X)`, the "
            "portable switch. They are harmless for agnostic code and kept."
        ),
        before="torch.backends.cudnn.benchmark = True\ntorch.backends.cudnn.deterministic = True",
        after="torch.use_deterministic_algorithms(True)",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.NOTE,
    ),
    Rule(
        code="TP051",
        name="tf32-flags",
        category=Category.BACKEND_FLAGS,
        message="TF32 switches are CUDA-specific",
        explanation=(
            "`torch.backends.cuda.matmul.allow_tf32` has no effect on TPU/Trainium, where the "
            "float32 matmul precision is set with `torch.set_float32_matmul_precision` "
            "(TorchTPU maps 'high' to 3 bf16 passes, 'highest' to 6). The codemod writes "
            "`torch.set_float32_matmul_precision('high')` for `allow_tf32 = True` ('highest' for "
            "False) and deletes `cudnn.allow_tf32` (no cuDNN). Note: TPU's default precision is "
            "lower than TF32, so tight tolerances may need 'highest'."
        ),
        before="torch.backends.cuda.matmul.allow_tf32 = True",
        after='torch.set_float32_matmul_precision("high")',
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.NOTE,
    ),
    Rule(
        code="TP052",
        name="sdpa-backend-forcing",
        category=Category.BACKEND_FLAGS,
        message="Scaled-dot-product attention is forced onto CUDA-only kernels",
        explanation=(
            "`sdpa_kernel(SDPBackend.FLASH_ATTENTION)` or `torch.backends.cuda.sdp_kernel("
            "enable_math=False)` leaves no kernel on the target ('no available kernel'). For "
            "tpu/neuron the codemod drops the context manager (the platform picks its kernel); "
            "for agnostic it adds the math backend as a fallback, which keeps CUDA's choice."
        ),
        before=(
            "with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n"
            "    out = F.scaled_dot_product_attention(q, k, v)"
        ),
        after="out = F.scaled_dot_product_attention(q, k, v)  # tpu/neuron",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP053",
        name="cuda-math-flags",
        category=Category.BACKEND_FLAGS,
        message="cuBLAS/cuFFT/linalg switches have no effect off CUDA",
        explanation=(
            "`allow_fp16_reduced_precision_reduction`, `allow_bf16_reduced_precision_reduction`, "
            "`preferred_linalg_library`, `preferred_blas_library` and `cufft_plan_cache` tune "
            "CUDA libraries only. The codemod deletes them for tpu/neuron."
        ),
        before="torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False",
        after="",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.NOTE,
    ),
)
