"""The error catalogue: what a failed run's output means and what to try next.

Each entry is a pattern over the run's stderr/stdout (exact texts from migration-rules.md §2 and
the emulated runtime's own errors), the error kind it signals, the rule categories whose codemods
address it, and advice for a person and for the model.
"""

import re
from dataclasses import dataclass
from enum import StrEnum


class ErrorKind(StrEnum):
    """Why a run failed, as the diagnose step sees it."""

    CUDA_NOT_COMPILED = "cuda-not-compiled"
    NO_NVIDIA_DRIVER = "no-nvidia-driver"
    CUDA_DESERIALIZE = "cuda-deserialize"
    NCCL_WITHOUT_GPU = "nccl-without-gpu"
    BACKEND_NOT_REGISTERED = "backend-not-registered"
    TRITON = "triton"
    CUDA_EXTENSION = "cuda-extension"
    CUDA_ONLY_LIBRARY = "cuda-only-library"
    FLOAT64_ON_DEVICE = "float64-on-device"
    DEVICE_OOM = "device-oom"
    MIXED_DEVICE = "mixed-device"
    AUTOCAST_DTYPE = "autocast-dtype"
    OP_NOT_LOWERED = "op-not-lowered"
    SYNTAX_ERROR = "syntax-error"
    IMPORT_ERROR = "import-error"
    TIMEOUT = "timeout"
    SANDBOX_OOM = "sandbox-oom"
    PARITY_FAILURE = "parity-failure"
    NOT_ON_DEVICE = "not-on-device"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class CatalogueEntry:
    """One known failure: how to recognise it and what to do about it."""

    kind: ErrorKind
    pattern: re.Pattern[str]
    categories: tuple[str, ...]
    advice: str


def _entry(kind: ErrorKind, regex: str, categories: tuple[str, ...], advice: str) -> CatalogueEntry:
    return CatalogueEntry(kind, re.compile(regex, re.IGNORECASE | re.MULTILINE), categories, advice)


# Order matters: the first entry whose pattern matches the run's output wins.
CATALOGUE: tuple[CatalogueEntry, ...] = (
    _entry(
        ErrorKind.TRITON,
        r"\d+ active drivers \(\[.*?\]\)\. There should only be one"
        r"|No module named '?triton'?|triton is not available"
        r"|Triton.*(?:not supported|unavailable)",
        ("kernels",),
        "Triton kernels need an NVIDIA/AMD GPU: replace the kernel call with a PyTorch or "
        "sandbox.kernels implementation that computes the same result.",
    ),
    _entry(
        ErrorKind.CUDA_EXTENSION,
        r"CUDA_HOME environment variable is not set|cpp_extension.*\.cu|undefined symbol.*cuda"
        r"|libcudart",
        ("kernels",),
        "A compiled CUDA extension cannot run on the target: use its Python fallback or "
        "reimplement the op in PyTorch.",
    ),
    _entry(
        ErrorKind.CUDA_ONLY_LIBRARY,
        r"No module named '(flash_attn\w*|xformers|apex|amp_C|bitsandbytes|cupy|pynvml)'",
        ("third-party",),
        "A CUDA-only library is imported: switch to its PyTorch equivalent (SDPA, torch.optim, "
        "nn.LayerNorm/RMSNorm).",
    ),
    _entry(
        ErrorKind.CUDA_DESERIALIZE,
        r"Attempting to deserialize object on a CUDA device",
        ("serialization",),
        "Load checkpoints with map_location='cpu' (or the target device).",
    ),
    _entry(
        ErrorKind.NCCL_WITHOUT_GPU,
        r"ProcessGroupNCCL is only supported with GPUs|Distributed package doesn't have NCCL"
        r"|NCCL.*(?:not available|not built)",
        ("distributed",),
        "Use dist.get_default_backend_for_device(device) instead of 'nccl'.",
    ),
    _entry(
        ErrorKind.BACKEND_NOT_REGISTERED,
        r"Default backend not registered for device\s*:\s*(\S+)",
        ("distributed",),
        "The device has no registered process-group backend: pass the device torch.accelerator "
        "reports, after the runtime is loaded.",
    ),
    _entry(
        ErrorKind.FLOAT64_ON_DEVICE,
        r"float64[^\n]*not supported|not supported[^\n]*float64|\bdouble\b[^\n]*not supported",
        ("dtype",),
        "The target has no float64: compute in float32 (cast at the host boundary).",
    ),
    _entry(
        ErrorKind.DEVICE_OOM,
        r"RESOURCE_EXHAUSTED|Ran out of memory in memory space hbm|OutOfMemoryError",
        ("memory",),
        "The program exceeds the device memory budget: reduce batch size or sequence length, "
        "or choose a chip profile with more memory.",
    ),
    _entry(
        ErrorKind.MIXED_DEVICE,
        r"Expected all tensors to be on the same device",
        ("device",),
        "A tensor stayed on the CPU: create it on the device (device=x.device) or move it.",
    ),
    _entry(
        ErrorKind.AUTOCAST_DTYPE,
        r"autocast, but the target dtype is not supported|Unsupported dtype \S+ for AMP"
        r"|Autocast only supports dtype",
        ("amp",),
        "Use bfloat16 autocast on the target.",
    ),
    _entry(
        ErrorKind.OP_NOT_LOWERED,
        r"op\(s\) not lowered|not lowered to the device|strict mode.*fallback|fallback.*strict",
        ("device",),
        "An op ran through the CPU fallback in strict mode: use an equivalent op with a device "
        "kernel or relax strict mode.",
    ),
    _entry(
        ErrorKind.CUDA_NOT_COMPILED,
        r"Torch not compiled with CUDA enabled|CUDA is not available|no CUDA GPUs are available"
        r"|Cannot re-initialize CUDA",
        ("device", "sync", "memory", "rng", "amp", "backend-flags", "data-loading"),
        "CUDA-only calls remain: rewrite them to torch.accelerator / the target device.",
    ),
    _entry(
        ErrorKind.NO_NVIDIA_DRIVER,
        r"Found no NVIDIA driver on your system",
        ("device", "sync", "memory"),
        "CUDA-only calls remain: rewrite them to torch.accelerator / the target device.",
    ),
    _entry(ErrorKind.SYNTAX_ERROR, r"^\s*SyntaxError: ", (), "Fix the syntax error."),
    _entry(
        ErrorKind.IMPORT_ERROR,
        r"^(?:ModuleNotFoundError|ImportError): ",
        ("third-party",),
        "An import fails in the sandbox: the module may be CUDA-only or missing from the image.",
    ),
)


def match_output(text: str) -> tuple[CatalogueEntry, re.Match[str]] | None:
    """The first catalogue entry whose pattern occurs in `text`, with its match."""
    for entry in CATALOGUE:
        found = entry.pattern.search(text)
        if found:
            return entry, found
    return None
