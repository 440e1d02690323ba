"""The fixed vocabulary of pattern tags a task may carry, and the tags the suite must cover.

Each tag names one CUDA lock-in pattern and says how to recognise it in a case's sources:
`evidence` is a tuple of regexes that must all match somewhere in the case's source files or
run commands, so a tag cannot claim a pattern the code does not contain.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Tag:
    """One pattern tag: its name, what it means, and the regexes that show it is present."""

    name: str
    description: str
    evidence: tuple[str, ...]

    def missing_evidence(self, text: str) -> list[str]:
        """The evidence regexes that do not match `text` (empty when the tag is shown)."""
        return [pattern for pattern in self.evidence if not re.search(pattern, text, re.MULTILINE)]


_QUOTE = "[\"']"

TAGS: dict[str, Tag] = {
    tag.name: tag
    for tag in (
        Tag(
            "device-string",
            'hard-coded "cuda" / "cuda:0" device strings',
            (rf"{_QUOTE}cuda(:\d+)?{_QUOTE}",),
        ),
        Tag(
            "cuda-flag",
            "a --cuda/--gpu command-line flag that selects CUDA",
            (r"add_argument\(\s*[\"']--(cuda|gpu|no[-_]cuda)",),
        ),
        Tag(
            "auto-device",
            '`"cuda" if torch.cuda.is_available() else "cpu"`',
            (
                rf"{_QUOTE}cuda{_QUOTE}\s+if\s+torch\.cuda\.is_available\(\)\s+else\s+{_QUOTE}cpu{_QUOTE}",
            ),
        ),
        Tag("cuda-calls", ".cuda() on modules and tensors", (r"\.cuda\(",)),
        Tag(
            "cuda-seed", "torch.cuda.manual_seed / manual_seed_all", (r"torch\.cuda\.manual_seed",)
        ),
        Tag(
            "cuda-checks",
            "torch.cuda.is_available() gates and x.is_cuda tests",
            (r"torch\.cuda\.is_available\(\)|\.is_cuda\b",),
        ),
        Tag("device-count", "torch.cuda.device_count()", (r"torch\.cuda\.device_count\(",)),
        Tag("set-device", "torch.cuda.set_device(local_rank)", (r"torch\.cuda\.set_device\(",)),
        Tag(
            "cuda-amp",
            "torch.cuda.amp.autocast / torch.cuda.amp.GradScaler",
            (r"torch\.cuda\.amp\.",),
        ),
        Tag(
            "torch-amp-fp16",
            'torch.amp / torch.autocast on "cuda" with float16',
            (r"torch\.(amp\.)?autocast\(", r"float16"),
        ),
        Tag("grad-scaler", "a GradScaler: scale, step, update", (r"GradScaler\(", r"\.update\(\)")),
        Tag("bf16-autocast", "autocast regions in bfloat16", (r"autocast\(", r"bfloat16")),
        Tag(
            "backend-flags",
            "cuDNN and TF32 switches: cudnn.benchmark/deterministic, allow_tf32, matmul precision",
            (r"torch\.backends\.(cudnn|cuda\.matmul)\.|set_float32_matmul_precision\(",),
        ),
        Tag(
            "sdp-kernel",
            "forcing SDPA backends: sdp_kernel, sdpa_kernel, enable_flash_sdp",
            (r"sdp_kernel\(|sdpa_kernel\(|enable_(flash|mem_efficient|math)_sdp\(",),
        ),
        Tag("cuda-events", "torch.cuda.Event timing", (r"torch\.cuda\.Event\(",)),
        Tag("synchronize", "torch.cuda.synchronize()", (r"torch\.cuda\.synchronize\(",)),
        Tag(
            "memory-queries",
            "mem_get_info, max_memory_allocated, get_device_properties and friends",
            (
                r"torch\.cuda\.(mem_get_info|max_memory_allocated|memory_allocated|"
                r"get_device_properties|memory_reserved|reset_peak_memory_stats)\(",
            ),
        ),
        Tag(
            "capability-query",
            "is_bf16_supported, get_device_capability, get_device_name",
            (r"torch\.cuda\.(is_bf16_supported|get_device_capability|get_device_name)\(",),
        ),
        Tag(
            "streams",
            "torch.cuda.Stream, stream contexts, wait_stream",
            (r"torch\.cuda\.(Stream|stream)\(",),
        ),
        Tag("nvtx", "torch.cuda.nvtx ranges", (r"nvtx\.",)),
        Tag("pin-memory", "pinned host memory: pin_memory=True, .pin_memory()", (r"pin_memory",)),
        Tag("non-blocking", "asynchronous copies with non_blocking=True", (r"non_blocking=True",)),
        Tag(
            "ddp-nccl",
            "DistributedDataParallel over the nccl backend",
            (rf"{_QUOTE}nccl{_QUOTE}", r"DistributedDataParallel"),
        ),
        Tag(
            "torchrun",
            "launched by torchrun with several processes",
            (r"\btorchrun\b.*--nproc[-_]per[-_]node[= ]?[2-9]",),
        ),
        Tag(
            "map-location",
            'torch.load(..., map_location="cuda") and friends',
            (rf"map_location\s*=\s*({_QUOTE}cuda|torch\.device\(\s*{_QUOTE}cuda|lambda)",),
        ),
        Tag(
            "load-cuda-checkpoint",
            "torch.load of a checkpoint saved from CUDA tensors, without map_location",
            (r"torch\.load\(\s*[\w.\[\]\"']+\s*(,\s*weights_only\s*=\s*\w+\s*)?\)",),
        ),
        Tag(
            "compile-cuda-mode",
            "torch.compile with CUDA-only modes or inductor CUDA options",
            (r"torch\.compile\(", r"max-autotune|reduce-overhead|cudagraphs"),
        ),
        Tag(
            "cuda-generator",
            'torch.Generator(device="cuda")',
            (rf"torch\.Generator\(\s*device\s*=\s*{_QUOTE}cuda",),
        ),
        Tag("float64", "float64 math on the device", (r"float64|\.double\(\)",)),
        Tag(
            "half-inference",
            "fp16 inference: .half() models and inputs",
            (r"\.half\(\)", r"inference_mode|no_grad"),
        ),
        Tag(
            "fused-optimizer", "CUDA fused optimizers (fused=True)", (r"\bfused\s*=|\buse_fused\b",)
        ),
        Tag(
            "triton",
            "a Triton kernel (@triton.jit) launched from PyTorch",
            (r"@triton\.jit", r"\[grid\]|\[\("),
        ),
        Tag(
            "cuda-extension",
            "a C++/CUDA extension built with cpp_extension, with a Python fallback",
            (r"cpp_extension", r"__global__"),
        ),
        Tag(
            "flash-attn",
            "flash-attn import with an SDPA fallback",
            (r"from flash_attn", r"scaled_dot_product_attention"),
        ),
    )
}
"""Every tag a task.toml may use, by name."""

REQUIRED_TAGS: tuple[str, ...] = (
    "device-string",
    "cuda-flag",
    "auto-device",
    "cuda-calls",
    "cuda-amp",
    "torch-amp-fp16",
    "grad-scaler",
    "bf16-autocast",
    "backend-flags",
    "sdp-kernel",
    "cuda-events",
    "synchronize",
    "memory-queries",
    "streams",
    "nvtx",
    "pin-memory",
    "non-blocking",
    "ddp-nccl",
    "torchrun",
    "map-location",
    "compile-cuda-mode",
    "cuda-generator",
    "float64",
    "half-inference",
    "triton",
    "cuda-extension",
    "flash-attn",
)
"""The patterns the suite as a whole must cover (issue 9)."""
