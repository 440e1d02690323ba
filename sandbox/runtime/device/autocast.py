"""Autocast for the emulated device. torch ships no AutocastPrivateUse1 kernels, so every op falls
through by default and the ops of CUDA's autocast lists get Python kernels with the same policies
(PyTorch uses CUDA's lists for PrivateUse1 backends too). The lists live in one place,
`sandbox.runtime.reference.autocast_lists`, checked there against the installed torch. The
default autocast dtype is bfloat16 (PyTorch's PrivateUse1 default, float16, would disable autocast
with a warning on TPU/Trainium)."""

from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.reference.autocast_lists import (
    BANNED,
    FP32,
    FP32_APPEND_DTYPE,
    FP32_SET_OPT_DTYPE,
    LOWER_PRECISION,
    PROMOTE,
)

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


def _append_dtype(
    op: torch._ops.OpOverload, with_dtype: torch._ops.OpOverload, target: str
) -> Callable[..., Any]:
    """fp32_append_dtype: redispatch eligible calls to the overload taking dtype=float32."""

    def run(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE):
            if args and _eligible(args[0], target):
                return with_dtype(*args, **kwargs, dtype=torch.float32)
            return op(*args, **kwargs)

    return run


def _banned(message: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

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
    for name, with_dtype in FP32_APPEND_DTYPE.items():
        kernel = _append_dtype(_overload(name), _overload(with_dtype), target)
        library.impl(name, kernel, "AutocastPrivateUse1")
    for name, message in BANNED.items():
        library.impl(name, _banned(message), "AutocastPrivateUse1")
    torch.set_autocast_dtype(target, torch.bfloat16)
    _LIBRARIES.extend([fallthrough, library])


_LIBRARIES: list[torch.library.Library] = []
