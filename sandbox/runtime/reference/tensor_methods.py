"""Handlers for the tensor methods whose meaning depends on the device.

Getters report the logical device (`.device`, `.is_cuda`, `get_device()`, `type()`, `repr`).
Transfers copy, as they do between host and GPU: `.cuda()`/`.to("cuda")` of a CPU tensor and
`.cpu()` of a CUDA one return new storage, so in-place edits on one side never reach the other.
"""

from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.reference.emulation import Emulation, Handler
from sandbox.runtime.reference.state import CPU
from sandbox.runtime.reference.tags import storage_key

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
Func = Callable[..., Any]

_TYPE_NAMES = {
    torch.float32: "FloatTensor", torch.float64: "DoubleTensor", torch.float16: "HalfTensor",
    torch.bfloat16: "BFloat16Tensor", torch.int64: "LongTensor", torch.int32: "IntTensor",
    torch.int16: "ShortTensor", torch.int8: "CharTensor", torch.uint8: "ByteTensor",
    torch.bool: "BoolTensor",
}  # fmt: skip
_DTYPE_OF_NAME = {name: dtype for dtype, name in _TYPE_NAMES.items()}


def _device(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    index = emu.device_of(args[0])
    return func(*args, **kwargs) if index is None else torch.device("cuda", index)


def _is_cuda(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> bool:
    return emu.device_of(args[0]) is not None


def _is_cpu(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> bool:
    return emu.device_of(args[0]) is None and bool(func(*args, **kwargs))


def _get_device(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> int:
    index = emu.device_of(args[0])
    return -1 if index is None else index


def _grad(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    grad = func(*args, **kwargs)
    index = emu.device_of(args[0])
    if grad is not None and index is not None and emu.device_of(grad) is None:
        emu.tag(grad, index)
    return grad


def _repr(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> str:
    text = str(func(*args, **kwargs))
    index = emu.device_of(args[0])
    if index is None or not text.endswith(")"):
        return text
    suffix = f", device='cuda:{index}'"
    for marker in (", dtype=", ", grad_fn=", ", requires_grad="):
        at = text.find(marker)
        if at >= 0:
            return text[:at] + suffix + text[at:]
    return text[:-1] + suffix + ")"


def _type(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    tensor, rest = args[0], args[1:]
    wanted = rest[0] if rest else kwargs.get("dtype")
    index = emu.device_of(tensor)
    if wanted is None:
        name = _TYPE_NAMES.get(tensor.dtype, "Tensor")
        return f"torch.cuda.{name}" if index is not None else f"torch.{name}"
    if isinstance(wanted, str):
        to_cuda = wanted.startswith("torch.cuda.")
        dtype = _DTYPE_OF_NAME.get(wanted.rsplit(".", 1)[-1], tensor.dtype)
        target = emu.state.current_device if to_cuda and index is None else index
        return _move(emu, tensor, target if to_cuda else None, dtype)
    return emu.default(func, args, kwargs)


def _to(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    tensor, rest = args[0], list(args[1:])
    if rest and isinstance(rest[0], int) and not isinstance(rest[0], bool):
        rest[0] = torch.device("cuda", emu.state.check_index(rest[0]))
    parse_kwargs = {key: value for key, value in kwargs.items() if key != "copy"}
    if isinstance(parse_kwargs.get("device"), int):
        parse_kwargs["device"] = torch.device("cuda", parse_kwargs["device"])
    copy = bool(kwargs.get("copy", False))
    if rest and isinstance(rest[0], torch.Tensor):
        other = rest[0]
        target, dtype, memory_format = emu.device_of(other), other.dtype, None
    else:
        device, dtype, _, memory_format = torch._C._nn._parse_to(*rest, **parse_kwargs)
        if device is None:
            target = emu.device_of(tensor)
        else:
            index = emu.state.parse_device(device)
            if index is None:
                return func(*args, **kwargs)
            target = None if index == CPU else index
    return _move(emu, tensor, target, dtype, memory_format=memory_format, copy=copy)


def _move(
    emu: Emulation,
    tensor: torch.Tensor,
    target: int | None,
    dtype: torch.dtype | None,
    *,
    memory_format: torch.memory_format | None = None,
    copy: bool = False,
) -> torch.Tensor:
    """`tensor` on `target` (None: CPU) with `dtype`, copying when the device changes."""
    source = emu.device_of(tensor)
    if emu.half_to_bf16 and dtype is torch.float16:
        dtype = torch.bfloat16
    out = tensor.to(
        device="cpu",
        dtype=dtype or tensor.dtype,
        copy=copy,
        memory_format=memory_format or torch.preserve_format,
    )
    if target != source:
        if storage_key(out) == storage_key(tensor):
            out = out.clone()
        emu.state.op_counts["transfer"] += 1
    if target is not None and (out is not tensor or target != source):
        emu.tag(out, target)
    return out


def _cuda(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    tensor = args[0]
    device = args[1] if len(args) > 1 else kwargs.get("device")
    index = emu.state.current_device if device is None else emu.state.parse_device(device)
    if index is None or index == CPU:
        raise RuntimeError(f"Invalid device, must be cuda device, got {device}")
    if emu.device_of(tensor) == index:
        return tensor
    memory_format = kwargs.get("memory_format") or torch.preserve_format
    return _move(emu, tensor, index, None, memory_format=memory_format)


def _cpu(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    tensor = args[0]
    if emu.device_of(tensor) is None:
        return func(*args, **kwargs)
    memory_format = kwargs.get("memory_format") or torch.preserve_format
    return _move(emu, tensor, None, None, memory_format=memory_format)


def _numpy(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    index = emu.device_of(args[0])
    if index is not None:
        raise TypeError(
            f"can't convert cuda:{index} device type tensor to numpy. Use Tensor.cpu() to copy "
            "the tensor to host memory first."
        )
    return func(*args, **kwargs)


def _pin_memory(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    tensor = args[0]
    if emu.device_of(tensor) is not None:
        raise RuntimeError(
            "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned"
        )
    if emu.state.tags.is_pinned(tensor):
        return tensor
    pinned = tensor.clone()
    emu.state.tags.tag(pinned, None, pinned=True)
    return pinned


def _is_pinned(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> bool:
    return emu.state.tags.is_pinned(args[0])


def _as_tensor(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    result = emu.default(func, args, kwargs)
    index = emu.device_of(result) if isinstance(result, torch.Tensor) else None
    if index is None or result is (args[0] if args else None):
        return result
    copy = result.clone()  # a GPU copy never aliases host memory
    return emu.tag(copy, index)


def tensor_handlers() -> dict[Any, Handler]:
    """Handlers keyed by the function objects the mode receives."""
    tensor = torch.Tensor
    descriptors: Any = torch._C.TensorBase
    return {
        descriptors.device.__get__: _device,
        descriptors.is_cuda.__get__: _is_cuda,
        descriptors.is_cpu.__get__: _is_cpu,
        descriptors.grad.__get__: _grad,
        tensor.get_device: _get_device,
        tensor.__repr__: _repr,
        tensor.type: _type,
        tensor.to: _to,
        tensor.cuda: _cuda,
        tensor.cpu: _cpu,
        tensor.numpy: _numpy,
        tensor.__array__: _numpy,
        tensor.pin_memory: _pin_memory,
        tensor.is_pinned: _is_pinned,
        torch.as_tensor: _as_tensor,
        torch.asarray: _as_tensor,
    }
