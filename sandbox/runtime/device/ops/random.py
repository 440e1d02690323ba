"""Random sampling on the device with CUDA's Philox, as the reference draws it on CUDA tensors:
`uniform_`, `normal_`, `random_(from, to)` and `normal(mean, std)` with tensor arguments (the
factories `rand`, `randn`, `randint`, their `_like` forms and `normal(float, float, size)` are
PyTorch composites over these). Other dtypes, and `random_()` without bounds, run on the CPU
fallback against the device generator's CPU stream, as on the reference."""

from typing import Any

import torch

from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.fallback import CpuFallback
from sandbox.runtime.device.random import DeviceRandom
from sandbox.runtime.device.tensors import cpu_alias
from sandbox.runtime.rng.sampling import (
    FLOATS,
    fill_normal,
    fill_normal_with_tensors,
    fill_randint,
    fill_uniform,
)

aten = torch.ops.aten
_RANDOM_FROM = getattr(aten.random_, "from")  # an overload named by a Python keyword
Scalar = float | int


def _host(value: Any) -> Any:
    """A device tensor as its CPU alias; anything else unchanged."""
    if isinstance(value, torch.Tensor) and not value.is_cpu:
        return cpu_alias(value)
    return value


class RandomOps:
    """The Philox kernels of one device."""

    def __init__(self, ctx: DeviceContext, rng: DeviceRandom, fallback: CpuFallback) -> None:
        self.ctx = ctx
        self.rng = rng
        self.fallback = fallback

    def _on_fallback(self, op: torch._ops.OpOverload, args: tuple[Any, ...], generator: Any) -> Any:
        return self.fallback.run_as(op, op.name(), args, {"generator": generator})

    def uniform_(
        self, tensor: torch.Tensor, low: float = 0.0, high: float = 1.0, *, generator: Any = None
    ) -> torch.Tensor:
        gen = self.rng.resolve(generator)
        if tensor.dtype not in FLOATS:
            return self._on_fallback(aten.uniform_.default, (tensor, low, high), generator)
        fill_uniform(cpu_alias(tensor), float(low), float(high), gen, self.rng.gpu)
        return tensor

    def normal_(
        self, tensor: torch.Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None
    ) -> torch.Tensor:
        gen = self.rng.resolve(generator)
        if tensor.dtype not in FLOATS:
            return self._on_fallback(aten.normal_.default, (tensor, mean, std), generator)
        fill_normal(cpu_alias(tensor), float(mean), float(std), gen, self.rng.gpu)
        return tensor

    def random_from(
        self, tensor: torch.Tensor, low: int, high: int | None, *, generator: Any = None
    ) -> torch.Tensor:
        gen = self.rng.resolve(generator)
        if high is None:
            return self._on_fallback(_RANDOM_FROM, (tensor, low, high), generator)
        fill_randint(cpu_alias(tensor), int(low), int(high), gen, self.rng.gpu)
        return tensor

    def random_to(self, tensor: torch.Tensor, high: int, *, generator: Any = None) -> torch.Tensor:
        return self.random_from(tensor, 0, high, generator=generator)

    def normal(
        self,
        mean: torch.Tensor | Scalar,
        std: torch.Tensor | Scalar = 1.0,
        *,
        generator: Any = None,
        out: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """`normal.Tensor_Tensor`/`Tensor_float`/`float_Tensor` and their `out=` forms."""
        gen = self.rng.resolve(generator)
        tensors = [value for value in (mean, std) if isinstance(value, torch.Tensor)]
        shape = torch.broadcast_shapes(*(tensor.shape for tensor in tensors))
        dtype = tensors[0].dtype
        if out is None:
            out = self.ctx.allocator.empty(tuple(shape), dtype, "aten::normal")
        elif tuple(out.shape) != tuple(shape):
            out.resize_(shape)
        if out.dtype not in FLOATS:
            raise RuntimeError(f"normal is not implemented for {out.dtype} on {self.ctx.target}")
        fill_normal_with_tensors(cpu_alias(out), _host(mean), _host(std), gen, self.rng.gpu)
        return out


def register(ctx: DeviceContext, rng: DeviceRandom, fallback: CpuFallback) -> None:
    """Register the Philox kernels on `ctx.registry`."""
    ops = RandomOps(ctx, rng, fallback)
    impl = ctx.registry.impl
    impl("uniform_", ops.uniform_)
    impl("normal_", ops.normal_)
    impl("random_.from", ops.random_from)
    impl("random_.to", ops.random_to)
    impl(
        [
            "normal.Tensor_Tensor",
            "normal.Tensor_float",
            "normal.float_Tensor",
            "normal.Tensor_Tensor_out",
            "normal.Tensor_float_out",
            "normal.float_Tensor_out",
        ],
        ops.normal,
    )
