"""Detectors for backend flags (TP050-TP053)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import chain, claim_callee
from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import argument, keyword
from tools.scanner.site import Site, site

CUDNN_FLAGS = frozenset(
    {
        "torch.backends.cudnn.benchmark",
        "torch.backends.cudnn.deterministic",
        "torch.backends.cudnn.enabled",
        "torch.backends.cudnn.benchmark_limit",
    }
)
TF32_FLAGS = frozenset(
    {
        "torch.backends.cuda.matmul.allow_tf32",
        "torch.backends.cudnn.allow_tf32",
        "torch.backends.cuda.matmul.fp32_precision",
        "torch.backends.cudnn.fp32_precision",
        "torch.backends.cudnn.conv.fp32_precision",
        "torch.backends.cudnn.rnn.fp32_precision",
    }
)
MATH_FLAGS = frozenset(
    {
        "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
        "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
        "torch.backends.cuda.cufft_plan_cache.max_size",
    }
)
MATH_CALLS = frozenset(
    {
        "torch.backends.cuda.preferred_linalg_library",
        "torch.backends.cuda.preferred_blas_library",
        "torch.backends.cuda.enable_flash_sdp",
        "torch.backends.cuda.enable_mem_efficient_sdp",
        "torch.backends.cuda.enable_math_sdp",
        "torch.backends.cuda.enable_cudnn_sdp",
        "torch.backends.cuda.cufft_plan_cache.clear",
    }
)
SDPA_CONTEXTS = frozenset({"torch.nn.attention.sdpa_kernel", "torch.backends.cuda.sdp_kernel"})


def on_assign(assign: cst.Assign, facts: ModuleFacts) -> Iterator[Site]:
    """`torch.backends.cudnn.benchmark = True` and other CUDA library switches."""
    if len(assign.targets) != 1:
        return
    target = assign.targets[0].target
    qualified = facts.qname(target)
    code = (
        "TP050"
        if qualified in CUDNN_FLAGS
        else "TP051"
        if qualified in TF32_FLAGS
        else "TP053"
        if qualified in MATH_FLAGS
        else None
    )
    if code is None:
        return
    facts.claim(*chain(target))
    fixable = facts.single_statement_line(assign) is not None
    yield site(code, assign, fixable=fixable, data=qualified)


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """Forced SDPA kernels (TP052) and cuBLAS/linalg/SDPA toggles (TP053)."""
    qualified = facts.qname(call)
    if qualified in MATH_CALLS:
        claim_callee(call, facts)
        yield site("TP053", call, fixable=facts.standalone_line(call) is not None)
    elif qualified in SDPA_CONTEXTS and not _allows_math(call, qualified, facts):
        claim_callee(call, facts)
        yield site("TP052", call, fixable=isinstance(facts.parent(call), cst.WithItem))


def _allows_math(call: cst.Call, qualified: str, facts: ModuleFacts) -> bool:
    if qualified == "torch.backends.cuda.sdp_kernel":
        flag = keyword(call, "enable_math")
        return flag is None or not (
            isinstance(flag.value, cst.Name) and flag.value.value == "False"
        )
    backends = argument(call, 0, "backends")
    if backends is None:
        return True
    value = backends.value
    elements = value.elements if isinstance(value, cst.List | cst.Tuple) else [value]
    for element in elements:
        item = element.value if isinstance(element, cst.BaseElement) else element
        if (facts.qname(item) or "").endswith("SDPBackend.MATH"):
            return True
    return False
