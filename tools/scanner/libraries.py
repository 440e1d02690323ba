"""What the scanner knows about CUDA-only libraries, and which of their calls have a rewrite."""

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import argument, keyword, positional, string_value

# (module prefix, rule) for imports; the first match wins.
LIBRARIES = (
    ("flash_attn", "TP150"),
    ("xformers", "TP151"),
    ("apex", "TP152"),
    ("bitsandbytes", "TP153"),
    ("cupy", "TP154"),
    ("cupyx", "TP154"),
    ("pynvml", "TP155"),
    ("py3nvml", "TP155"),
    ("nvidia_smi", "TP155"),
    ("GPUtil", "TP155"),
    ("tensorrt", "TP156"),
    ("torch_tensorrt", "TP156"),
    ("pycuda", "TP156"),
    ("cuda", "TP156"),
    ("nvidia.dali", "TP156"),
    ("cudf", "TP156"),
    ("cuml", "TP156"),
    ("cugraph", "TP156"),
    ("transformer_engine", "TP156"),
    ("flashinfer", "TP156"),
    ("deepspeed.ops", "TP156"),
    ("mamba_ssm", "TP156"),
    ("causal_conv1d", "TP156"),
    ("liger_kernel", "TP156"),
    ("unsloth", "TP156"),
)
CALL_RULES = (("flash_attn.", "TP150"), ("xformers.", "TP151"), ("bitsandbytes.", "TP153"))

FLASH_FUNC = frozenset(
    {"flash_attn.flash_attn_func", "flash_attn.flash_attn_interface.flash_attn_func"}
)
FLASH_PACKED = frozenset(
    {
        "flash_attn.flash_attn_qkvpacked_func",
        "flash_attn.flash_attn_interface.flash_attn_qkvpacked_func",
    }
)
XFORMERS_ATTENTION = frozenset(
    {"xformers.ops.memory_efficient_attention", "xformers.ops.fmha.memory_efficient_attention"}
)
APEX_ADAM = frozenset({"apex.optimizers.FusedAdam", "apex.optimizers.fused_adam.FusedAdam"})
APEX_NORMS = {
    "apex.normalization.FusedLayerNorm": "LayerNorm",
    "apex.normalization.fused_layer_norm.FusedLayerNorm": "LayerNorm",
    "apex.normalization.FusedRMSNorm": "RMSNorm",
    "apex.normalization.fused_layer_norm.FusedRMSNorm": "RMSNorm",
}
FLASH_OPTIONS = frozenset({"dropout_p", "softmax_scale", "causal", "deterministic"})
ADAM_OPTIONS = frozenset(
    {"lr", "betas", "eps", "weight_decay", "amsgrad", "adam_w_mode", "bias_correction"}
)
ADAM_DROPPED = frozenset({"set_grad_none"})


def library_call_code(qualified: str) -> str | None:
    """The rule for calling `qualified` (apex.amp calls are TP035, found by the AMP detector)."""
    if qualified.startswith("apex.amp."):
        return None
    if qualified.startswith("apex."):
        return "TP152"
    return next((code for prefix, code in CALL_RULES if qualified.startswith(prefix)), None)


def attention_fixable(call: cst.Call, facts: ModuleFacts) -> bool:
    """Whether the codemod has a faithful rewrite for this library call."""
    if any(arg.star for arg in call.args):
        return False
    qualified = facts.qname(call) or ""
    if qualified in FLASH_FUNC:
        return _flash_fixable(call, positionals=6)
    if qualified in FLASH_PACKED:
        return _flash_fixable(call, positionals=4)
    if qualified in XFORMERS_ATTENTION:
        return _xformers_fixable(call, facts)
    if qualified in APEX_ADAM:
        return _adam_fixable(call)
    if qualified in APEX_NORMS:
        return _keywords(call) <= {"eps", "elementwise_affine"} and _positionals(call) <= 3
    return False


def _keywords(call: cst.Call) -> set[str]:
    return {arg.keyword.value for arg in call.args if arg.keyword is not None}


def _positionals(call: cst.Call) -> int:
    return len([arg for arg in call.args if arg.keyword is None])


def _flash_fixable(call: cst.Call, positionals: int) -> bool:
    if _positionals(call) > positionals:
        return False
    for name in _keywords(call) - FLASH_OPTIONS:
        arg = keyword(call, name)
        assert arg is not None
        if not _neutral(name, arg.value):
            return False
    return True


def _neutral(name: str, value: cst.BaseExpression) -> bool:
    """flash-attn options given at their no-op value (`window_size=(-1, -1)`, ...)."""
    text = cst.Module([]).code_for_node(value).replace(" ", "")
    neutral = {
        "window_size": ("(-1,-1)", "[-1,-1]"),
        "alibi_slopes": ("None",),
        "softcap": ("0", "0.0"),
        "return_attn_probs": ("False",),
    }
    return text in neutral.get(name, ())


def _xformers_fixable(call: cst.Call, facts: ModuleFacts) -> bool:
    if _positionals(call) > 6 or not _keywords(call) <= {"attn_bias", "p", "scale"}:
        return False
    bias = argument(call, 3, "attn_bias")
    return bias is None or is_lower_triangular(bias.value, facts) or _is_none(bias.value)


def is_lower_triangular(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    """`xformers.ops.LowerTriangularMask()` (any of its import paths), without arguments."""
    return (
        isinstance(node, cst.Call)
        and not node.args
        and (facts.qname(node) or "").endswith("LowerTriangularMask")
    )


def _is_none(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _adam_fixable(call: cst.Call) -> bool:
    if _positionals(call) > 2 or not _keywords(call) <= ADAM_OPTIONS | ADAM_DROPPED:
        return False
    for name in ("adam_w_mode", "bias_correction"):
        arg = keyword(call, name)
        if arg is not None and cst.Module([]).code_for_node(arg.value) not in ("True", "False"):
            return False
    correction = keyword(call, "bias_correction")
    return correction is None or cst.Module([]).code_for_node(correction.value) == "True"


def first_string(call: cst.Call) -> str | None:
    """The first positional argument when it is a string literal."""
    first = positional(call, 0)
    return string_value(first.value) if first else None
