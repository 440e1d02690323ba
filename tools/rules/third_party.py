"""CUDA-only libraries: flash-attn, xformers, apex, bitsandbytes, cupy, NVML and others."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP150",
        name="flash-attn",
        category=Category.THIRD_PARTY,
        message="flash-attn kernels are CUDA-only",
        explanation=(
            "`No module named 'flash_attn'` off CUDA. `flash_attn_func(q, k, v, ...)` on "
            "`(batch, seq, heads, dim)` tensors becomes PyTorch's scaled_dot_product_attention "
            "on transposed inputs, transposed back; `enable_gqa=True` keeps grouped-query "
            "attention. Declined: varlen/kv-cache functions, sliding windows, ALiBi, softcap, "
            "returned probabilities. Note: with `causal=True` and different query/key lengths "
            "flash-attn aligns the mask bottom-right, SDPA top-left."
        ),
        before="out = flash_attn_func(q, k, v, dropout_p=0.1, causal=True)",
        after=(
            "out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), "
            "v.transpose(1, 2), dropout_p=0.1, is_causal=True, enable_gqa=True).transpose(1, 2)"
        ),
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP151",
        name="xformers",
        category=Category.THIRD_PARTY,
        message="xformers attention kernels are CUDA-only",
        explanation=(
            "`memory_efficient_attention(q, k, v, attn_bias=None|LowerTriangularMask(), p, "
            "scale)` on `(batch, seq, heads, dim)` tensors becomes scaled_dot_product_attention "
            "on transposed inputs (`is_causal=True` for the lower-triangular mask). Other "
            "attention biases (block-diagonal, tensors) are left for a person."
        ),
        before=(
            "out = xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask())"
        ),
        after=(
            "out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), "
            "v.transpose(1, 2), is_causal=True).transpose(1, 2)"
        ),
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP152",
        name="apex-fused",
        category=Category.THIRD_PARTY,
        message="NVIDIA apex fused modules are CUDA-only",
        explanation=(
            "`FusedAdam` becomes `torch.optim.AdamW` (or `Adam` when `adam_w_mode=False`; "
            "weight decay defaults to 0 as in apex), `FusedLayerNorm` `torch.nn.LayerNorm`, "
            "`FusedRMSNorm` `torch.nn.RMSNorm` (eps 1e-5 as in apex). `FusedLAMB`, apex DDP and "
            "SyncBatchNorm need judgement."
        ),
        before="opt = FusedAdam(model.parameters(), lr=1e-3)",
        after="opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP153",
        name="bitsandbytes",
        category=Category.THIRD_PARTY,
        message="bitsandbytes 8-bit/4-bit kernels are CUDA-only",
        explanation=(
            "8-bit optimizers become `torch.optim.AdamW` (more optimizer memory: check it fits "
            "the device budget); quantised layers need the target's own quantisation "
            "(torch_xla quantized ops, TorchTPU fp8 `scaled_mm`, Neuron FP8) or bf16 weights."
        ),
        before="opt = bnb.optim.AdamW8bit(model.parameters(), lr=1e-4)",
        after="opt = torch.optim.AdamW(model.parameters(), lr=1e-4)",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP154",
        name="cupy",
        category=Category.THIRD_PARTY,
        message="CuPy arrays live on NVIDIA GPUs",
        explanation=(
            "Rewrite the CuPy code with torch tensors on the selected device (or NumPy on the "
            "host); raw CUDA kernels through CuPy need a target kernel."
        ),
        before="import cupy as cp\nx = cp.asarray(a)",
        after="x = torch.as_tensor(a, device=DEVICE)",
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP155",
        name="nvml",
        category=Category.THIRD_PARTY,
        message="NVML (pynvml, nvidia-smi wrappers) queries NVIDIA GPUs",
        explanation=(
            "GPU monitoring through NVML fails on TPU/Trainium hosts. Use "
            "`torch.accelerator.memory.*` for memory or the target's monitoring tools."
        ),
        before="import pynvml\npynvml.nvmlInit()",
        after="used = torch.accelerator.memory.memory_allocated()",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP156",
        name="cuda-only-library",
        category=Category.THIRD_PARTY,
        message="A library that runs on NVIDIA GPUs only",
        explanation=(
            "TensorRT, Torch-TensorRT, PyCUDA, cuda-python, DALI, RAPIDS (cudf, cuml), "
            "Transformer Engine, FlashInfer, DeepSpeed's fused ops and Triton-based kernel "
            "packages (mamba_ssm, causal_conv1d, liger_kernel, unsloth) import CUDA at load time. "
            "Replace each use with PyTorch or the target's library."
        ),
        before="import tensorrt as trt",
        after="# export with torch.export / the target's compiler instead",
        targets=ALL_TARGETS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
)
