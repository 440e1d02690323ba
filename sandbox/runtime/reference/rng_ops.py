"""Mode handlers for the random ops drawn with CUDA's Philox (`sandbox.runtime.rng`) on CUDA
tensors.

Calls on CPU tensors, and dtypes the port does not cover, take the default path.
"""

from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.reference.emulation import Emulation, Handler
from sandbox.runtime.reference.state import CPU
from sandbox.runtime.rng.generator import PhiloxGenerator
from sandbox.runtime.rng.sampling import (
    FLOATS,
    INTEGERS,
    fill_normal,
    fill_normal_with_tensors,
    fill_randint,
    fill_uniform,
)

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
Func = Callable[..., Any]


def _draw_from(emu: Emulation, kwargs: Kwargs, like: torch.Tensor | None) -> PhiloxGenerator | None:
    """The CUDA generator to draw from, or None when the output is not on a CUDA device."""
    generator = kwargs.get("generator")
    device = kwargs.get("device")
    if device is not None:
        index = emu.state.parse_device(device)
        target = None if index in (None, CPU) else index
    elif isinstance(generator, PhiloxGenerator):
        target = generator.index
    else:
        target = None if like is None else emu.device_of(like)
    if target is None:
        return None
    return generator if isinstance(generator, PhiloxGenerator) else emu.generator(target)


def _size(values: Args) -> tuple[int, ...]:
    if len(values) == 1 and isinstance(values[0], tuple | list | torch.Size):
        return tuple(values[0])
    return tuple(values)


def _new_output(kwargs: Kwargs, size: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    out = kwargs.get("out")
    if out is not None:
        out.resize_(size)
        return out
    return torch.empty(size, dtype=dtype)


def _finish(emu: Emulation, out: torch.Tensor, gen: PhiloxGenerator, kwargs: Kwargs) -> Any:
    if kwargs.get("requires_grad"):
        out.requires_grad_(True)
    emu.state.cuda_calls += 1
    emu.state.op_counts["philox"] += 1
    emu.tag(out, gen.index)
    if emu.perturb_hook is not None:
        emu.perturb_hook(out)
    return out


def _factory(fill: Callable[..., None], low: float, high: float) -> Handler:
    """`torch.rand` / `torch.randn`."""

    def handler(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
        gen = _draw_from(emu, kwargs, None)
        dtype = kwargs.get("dtype") or torch.get_default_dtype()
        if gen is None or dtype not in FLOATS:
            return emu.default(func, args, kwargs)
        out = _new_output(kwargs, _size(args), dtype)
        fill(out, low, high, gen, emu.state.profile)
        return _finish(emu, out, gen, kwargs)

    return handler


def _like(fill: Callable[..., None], low: float, high: float) -> Handler:
    """`torch.rand_like` / `torch.randn_like`."""

    def handler(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
        source = args[0]
        gen = _draw_from(emu, kwargs, source)
        dtype = kwargs.get("dtype") or source.dtype
        if gen is None or dtype not in FLOATS:
            return emu.default(func, args, kwargs)
        memory_format = kwargs.get("memory_format") or torch.preserve_format
        out = torch.empty_like(source, dtype=dtype, device="cpu", memory_format=memory_format)
        fill(out, low, high, gen, emu.state.profile)
        return _finish(emu, out, gen, kwargs)

    return handler


def _in_place(fill: Callable[..., None], defaults: tuple[float, float]) -> Handler:
    """`Tensor.normal_(mean, std)` / `Tensor.uniform_(from, to)`."""

    def handler(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
        tensor = args[0]
        gen = _draw_from(emu, kwargs, tensor)
        if gen is None or tensor.dtype not in FLOATS:
            return emu.default(func, args, kwargs)
        names = ("mean", "std") if fill is fill_normal else ("from", "to")
        first = args[1] if len(args) > 1 else kwargs.get(names[0], defaults[0])
        second = args[2] if len(args) > 2 else kwargs.get(names[1], defaults[1])
        fill(tensor, float(first), float(second), gen, emu.state.profile)
        emu.state.cuda_calls += 1
        if emu.perturb_hook is not None:
            emu.perturb_hook(tensor)
        return tensor

    return handler


def _randint(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    gen = _draw_from(emu, kwargs, None)
    dtype = kwargs.get("dtype") or torch.int64
    if gen is None or dtype not in INTEGERS + FLOATS:
        return emu.default(func, args, kwargs)
    values = [*args]
    size = values.pop() if values else kwargs["size"]
    low, high = (0, values[0]) if len(values) == 1 else tuple(values) if values else (0, 0)
    low, high = kwargs.get("low", low), kwargs.get("high", high)
    out = _new_output(kwargs, tuple(size), dtype)
    fill_randint(out, int(low), int(high), gen, emu.state.profile)
    return _finish(emu, out, gen, kwargs)


def _randint_like(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    source, bounds = args[0], [*args[1:]]
    gen = _draw_from(emu, kwargs, source)
    dtype = kwargs.get("dtype") or source.dtype
    if gen is None or dtype not in INTEGERS + FLOATS or not bounds:
        return emu.default(func, args, kwargs)
    low, high = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    out = torch.empty_like(source, dtype=dtype, device="cpu")
    fill_randint(out, int(low), int(high), gen, emu.state.profile)
    return _finish(emu, out, gen, kwargs)


def _random_(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    tensor, bounds = args[0], [*args[1:]]
    if "to" in kwargs:
        bounds = [kwargs.get("from", bounds[0] if bounds else 0), kwargs["to"]]
    gen = _draw_from(emu, kwargs, tensor)
    if gen is None or not bounds or bounds[-1] is None:
        return emu.default(func, args, kwargs)
    low, high = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    fill_randint(tensor, int(low), int(high), gen, emu.state.profile)
    emu.state.cuda_calls += 1
    return tensor


def _normal(emu: Emulation, func: Func, args: Args, kwargs: Kwargs) -> Any:
    mean = args[0] if args else kwargs.get("mean", 0.0)
    std = args[1] if len(args) > 1 else kwargs.get("std", 1.0)
    tensors = [value for value in (mean, std) if isinstance(value, torch.Tensor)]
    gen = _draw_from(emu, kwargs, tensors[0] if tensors else None)
    if not tensors:
        size = args[2] if len(args) > 2 else kwargs.get("size")
        dtype = kwargs.get("dtype") or torch.get_default_dtype()
        if gen is None or size is None or dtype not in FLOATS:
            return emu.default(func, args, kwargs)
        out = _new_output(kwargs, tuple(size), dtype)
        fill_normal(out, float(mean), float(std), gen, emu.state.profile)
        return _finish(emu, out, gen, kwargs)
    if gen is None or tensors[0].dtype not in FLOATS:
        return emu.default(func, args, kwargs)
    shape = torch.broadcast_shapes(*(tensor.shape for tensor in tensors))
    out = _new_output(kwargs, tuple(shape), tensors[0].dtype)
    fill_normal_with_tensors(out, mean, std, gen, emu.state.profile)
    return _finish(emu, out, gen, {})


def rng_handlers() -> dict[Any, Handler]:
    """Handlers keyed by the function objects the mode receives."""
    return {
        torch.rand: _factory(fill_uniform, 0.0, 1.0),
        torch.randn: _factory(fill_normal, 0.0, 1.0),
        torch.rand_like: _like(fill_uniform, 0.0, 1.0),
        torch.randn_like: _like(fill_normal, 0.0, 1.0),
        torch.Tensor.uniform_: _in_place(fill_uniform, (0.0, 1.0)),
        torch.Tensor.normal_: _in_place(fill_normal, (0.0, 1.0)),
        torch.randint: _randint,
        torch.randint_like: _randint_like,
        torch.Tensor.random_: _random_,
        torch.normal: _normal,
    }
