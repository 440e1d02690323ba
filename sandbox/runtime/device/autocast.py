"""Autocast for the emulated device. torch ships no AutocastPrivateUse1 kernels, so every op falls
through by default and the ops of CUDA's autocast lists (aten/src/ATen/autocast_mode.h) get
Python kernels with the same policies; the default autocast dtype is bfloat16 (PyTorch's
PrivateUse1 default, float16, would disable autocast with a warning on TPU/Trainium)."""

from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.device.context import DeviceContext

LOWER_PRECISION = (
    "_convolution.deprecated",
    "_convolution",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d.input",
    "conv_transpose3d.input",
    "convolution",
    "prelu",
    "addmm",
    "addmv",
    "addr",
    "matmul",
    "einsum",
    "mm",
    "mv",
    "linalg_vecdot",
    "linear",
    "addbmm",
    "baddbmm",
    "bmm",
    "chain_matmul",
    "linalg_multi_dot",
    "_thnn_fused_lstm_cell",
    "_thnn_fused_gru_cell",
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "_scaled_dot_product_flash_attention",
    "scaled_dot_product_attention",
)
FP32 = (
    *("acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p"),
    *("reciprocal", "rsqrt", "sinh", "tan", "pow.Tensor_Scalar", "pow.Tensor_Tensor"),
    *("pow.Scalar", "softplus", "layer_norm", "native_layer_norm", "group_norm"),
    *("frobenius_norm.dim", "nuclear_norm", "nuclear_norm.dim", "cosine_similarity"),
    *("poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d"),
    *("hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss"),
    *("margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss"),
    *("triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits"),
    *("dist", "pdist", "cdist", "renorm", "logsumexp", "upsample_nearest1d"),
    *("_upsample_nearest_exact1d", "upsample_nearest2d", "_upsample_nearest_exact2d"),
    *("upsample_nearest3d", "_upsample_nearest_exact3d", "upsample_linear1d"),
    *("upsample_bilinear2d", "_upsample_bilinear2d_aa", "upsample_trilinear3d"),
    *("upsample_bicubic2d", "_upsample_bicubic2d_aa"),
)
FP32_SET_OPT_DTYPE = (
    *("prod", "prod.dim_int", "softmax.int", "log_softmax.int", "cumprod", "cumsum"),
    *("linalg_vector_norm", "linalg_matrix_norm", "linalg_matrix_norm.str_ord", "sum"),
    "sum.dim_IntList",
)
PROMOTE = (
    *("addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler"),
    *("index_put", "tensordot", "scatter_add"),
)
BANNED = ("binary_cross_entropy",)

_EXCLUDE = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastPrivateUse1)  # type: ignore[attr-defined]


def _overload(name: str) -> torch._ops.OpOverload:
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def _cast(value: Any, dtype: torch.dtype, target: str) -> Any:
    """Cast eligible values (floating, non-float64 tensors on the device) to `dtype`."""
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if _eligible(value, target) and value.dtype is not dtype else value
    if isinstance(value, list | tuple):
        return type(value)(_cast(item, dtype, target) for item in value)
    return value


def _widest(values: Any, target: str, start: torch.dtype) -> torch.dtype:
    widest = start
    for value in values:
        if isinstance(value, list | tuple):
            widest = _widest(value, target, widest)
        elif _eligible(value, target):
            widest = torch.promote_types(widest, value.dtype)
    return widest


def _eligible(value: Any, target: str) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and value.is_floating_point()
        and value.dtype is not torch.float64
        and value.device.type == target
    )


def _with_float32_dtype(op: torch._ops.OpOverload, args: Any, kwargs: dict[str, Any]) -> Any:
    """`op` with dtype=float32 unless a dtype was given (fp32_set_opt_dtype policy)."""
    names = [argument.name for argument in op._schema.arguments]
    position = names.index("dtype")
    if kwargs.get("dtype") is not None or (len(args) > position and args[position] is not None):
        return op(*args, **kwargs)
    if len(args) > position:
        args = (*args[:position], torch.float32, *args[position + 1 :])
        return op(*args, **kwargs)
    return op(*args, **kwargs, dtype=torch.float32)


def _kernel(op: torch._ops.OpOverload, policy: str, target: str) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE):
            if policy == "fp32_set_opt_dtype":
                if args and _eligible(args[0], target):
                    return _with_float32_dtype(op, args, kwargs)
                return op(*args, **kwargs)
            if policy == "lower":
                dtype = torch.get_autocast_dtype(target)
            elif policy == "promote":
                dtype = _widest((*args, *kwargs.values()), target, torch.get_autocast_dtype(target))
            else:
                dtype = torch.float32
            cast_args = [_cast(a, dtype, target) for a in args]
            cast_kwargs = {k: _cast(v, dtype, target) for k, v in kwargs.items()}
            return op(*cast_args, **cast_kwargs)

    return run


def _banned(name: str, target: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"torch.nn.functional.{name} and torch.nn.BCELoss are unsafe to autocast "
            f"({target}). Use binary_cross_entropy_with_logits / BCEWithLogitsLoss instead, "
            "which are safe to autocast."
        )

    return refuse


def install(ctx: DeviceContext) -> None:
    """Register the fallthrough and the per-op autocast kernels; default dtype bfloat16."""
    target = ctx.target
    fallthrough = torch.library.Library("_", "IMPL")
    fallthrough.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
    library = torch.library.Library("aten", "IMPL")
    for names, policy in (
        (LOWER_PRECISION, "lower"),
        (FP32, "fp32"),
        (FP32_SET_OPT_DTYPE, "fp32_set_opt_dtype"),
        (PROMOTE, "promote"),
    ):
        for name in names:
            library.impl(name, _kernel(_overload(name), policy, target), "AutocastPrivateUse1")
    for name in BANNED:
        library.impl(name, _banned(name, target), "AutocastPrivateUse1")
    torch.set_autocast_dtype(target, torch.bfloat16)
    _LIBRARIES.extend([fallthrough, library])


_LIBRARIES: list[torch.library.Library] = []
