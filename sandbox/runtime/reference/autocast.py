"""CUDA autocast on the CPU.

`torch.autocast("cuda")` switches on the CPU's autocast dispatch key (CPU tensors stand for CUDA
ones) with CUDA's dtype (fp16 by default), and Python kernels registered for `AutocastCPU`
apply CUDA's op lists (`autocast_lists.py`). Ops that only the CPU lists name are made neutral:
composite ones decompose with autocast still active (so `cross_entropy` reaches `log_softmax`
and `nll_loss`, which CUDA runs in fp32), the others run uncast.

`TORCHPORT_RT_PRECISION` overrides the regions for the reference's precision reruns: `fp32`
turns them off, `bf16`/`fp16` force their dtype.
"""

import warnings
from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.reference import autocast_lists as lists

_KEY = torch._C.DispatchKey.AutocastCPU
_EXCLUDE = torch._C.DispatchKeySet(_KEY)


def _eligible(value: Any) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and value.is_floating_point()
        and value.dtype != torch.float64
    )


def _cast(value: Any, dtype: torch.dtype) -> Any:
    if _eligible(value) and value.dtype != dtype:
        return value.to(dtype)
    if isinstance(value, list | tuple) and any(_eligible(item) for item in value):
        return type(value)(_cast(item, dtype) for item in value)
    return value


def _cast_all(args: tuple[Any, ...], kwargs: dict[str, Any], dtype: torch.dtype) -> tuple[Any, Any]:
    return tuple(_cast(a, dtype) for a in args), {k: _cast(v, dtype) for k, v in kwargs.items()}


def _promoted(args: tuple[Any, ...], kwargs: dict[str, Any], lower: torch.dtype) -> torch.dtype:
    current = lower
    values = [*args, *kwargs.values()]
    tensors = [
        v for value in values for v in (value if isinstance(value, list | tuple) else [value])
    ]
    for tensor in filter(_eligible, tensors):
        if current == torch.float32 or tensor.dtype == torch.float32:
            current = torch.float32
        elif tensor.dtype != lower:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _op(name: str) -> torch._ops.OpOverload:
    packet, _, overload = name.removeprefix("aten::").partition(".")
    return getattr(getattr(torch.ops.aten, packet), overload or "default")


def _kernel(policy: str, op: torch._ops.OpOverload, lower: Callable[[], torch.dtype]) -> Any:
    """One AutocastCPU kernel applying CUDA's `policy` to `op`."""
    dtype_index = next(
        (i for i, arg in enumerate(op._schema.arguments) if arg.name == "dtype"), None
    )

    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE), torch._C.DisableTorchFunction():
            if policy == "lower":
                args, kwargs = _cast_all(args, kwargs, lower())
            elif policy == "fp32":
                args, kwargs = _cast_all(args, kwargs, torch.float32)
            elif policy == "promote":
                args, kwargs = _cast_all(args, kwargs, _promoted(args, kwargs, lower()))
            elif policy == "set_opt_dtype" and args and _eligible(args[0]):
                args, kwargs = _set_dtype(args, kwargs, dtype_index)
            return op(*args, **kwargs)

    return kernel


def _set_dtype(args: tuple[Any, ...], kwargs: dict[str, Any], index: int | None) -> tuple[Any, Any]:
    if index is not None and index < len(args):
        if args[index] is None:
            args = (*args[:index], torch.float32, *args[index + 1 :])
        return args, kwargs
    if kwargs.get("dtype") is None:
        kwargs = {**kwargs, "dtype": torch.float32}
    return args, kwargs


def _append_dtype_kernel(target: torch._ops.OpOverload) -> Any:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE), torch._C.DisableTorchFunction():
            if args and _eligible(args[0]):
                return target(*args, dtype=torch.float32, **kwargs)
            return target(*args, **kwargs)

    return kernel


def _banned_kernel(message: str) -> Any:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

    return kernel


def _neutral_kernel(op: torch._ops.OpOverload) -> Any:
    composite = torch._C._dispatch_has_kernel_for_dispatch_key(
        op.name(), "CompositeImplicitAutograd"
    )

    def kernel(*args: Any, **kwargs: Any) -> Any:
        if composite:
            return op.decompose(*args, **kwargs)
        with torch._C._ExcludeDispatchKeyGuard(_EXCLUDE):
            return op(*args, **kwargs)

    return kernel


def register_cuda_lists() -> torch.library.Library:
    """Register CUDA's policies for AutocastCPU; returns the library (keep it alive)."""
    lower = torch._C.get_autocast_dtype  # the real CPU setting, not the patched torch.* view
    kernels: dict[str, Any] = {}
    for names, policy in (
        (lists.LOWER_PRECISION, "lower"),
        (lists.FP32, "fp32"),
        (lists.FP32_SET_OPT_DTYPE, "set_opt_dtype"),
        (lists.PROMOTE, "promote"),
    ):
        for name in names:
            kernels[f"aten::{name}"] = _kernel(policy, _op(name), lambda: lower("cpu"))
    for name, target in lists.FP32_APPEND_DTYPE.items():
        kernels[f"aten::{name}"] = _append_dtype_kernel(_op(target))
    for name, message in lists.BANNED.items():
        kernels[f"aten::{name}"] = _banned_kernel(message)
    for name in torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCPU"):
        kernels.setdefault(name, _neutral_kernel(_op(name)))
    library = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, kernel in kernels.items():
            library.impl(name.removeprefix("aten::"), kernel, "AutocastCPU")
    return library
