"""Native optimizer kernels: the `_foreach_*` ops that torch.optim's foreach path and
clip_grad_norm_ use, and the fused Adam/AdamW/SGD kernels (`fused=True`), all updating device
memory in place through NumPy (float32 fast paths write straight into the parameter buffers)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from sandbox.kernels import elementwise as ew
from sandbox.kernels import optim, reductions
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.ops.common import Results, as_compute, operand, result_type
from sandbox.runtime.device.tensors import np_view, read, write

Ufunc = Callable[..., Any]
FOREACH_BINARY: dict[str, Ufunc] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": ew.true_divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "pow": ew.power,
}
FOREACH_UNARY = ("sqrt", "neg", "reciprocal", "exp", "abs", "sign", "log", "sigmoid", "rsqrt")
BINARY_KINDS = ("Scalar", "List", "ScalarList", "Tensor")


def _per_tensor(other: Any, count: int) -> Sequence[Any]:
    """The second operand of a foreach op, one per tensor (a list, a scalar or a 0-dim tensor)."""
    if isinstance(other, list | tuple):
        return other
    if isinstance(other, torch.Tensor) and other.dim() == 1 and other.is_cpu:
        return other.tolist()
    value = operand(other) if isinstance(other, torch.Tensor) else other
    return [value] * count


def _apply(target: torch.Tensor, fn: Ufunc, left: Any, right: Any) -> None:
    """target = fn(left, right), in place, computing straight into float32 memory."""
    if target.dtype is torch.float32 and isinstance(fn, np.ufunc):
        view = np_view(target)
        fn(left, right, out=view)
    else:
        write(target, fn(left, right))


class ForeachOps:
    """Kernels of the foreach and fused optimizer ops."""

    def __init__(self, ctx: DeviceContext) -> None:
        self.results = Results(ctx.allocator)

    def binary(self, name: str, inplace: bool) -> Callable[..., Any]:
        fn = FOREACH_BINARY[name]
        op = f"aten::_foreach_{name}"

        def kernel(tensors: Sequence[torch.Tensor], other: Any, **kw: Any) -> Any:
            alpha = kw.get("alpha", 1)
            outputs = []
            for t, o in zip(tensors, _per_tensor(other, len(tensors)), strict=True):
                right = operand(o)
                if alpha != 1:
                    right = right * alpha
                if inplace:
                    left = np_view(t) if t.dtype is torch.float32 else read(t)
                    _apply(t, fn, left, right)
                else:
                    dtype = result_type(t, o)
                    values = fn(as_compute(read(t), dtype), as_compute(right, dtype))
                    outputs.append(self.results.new(values, dtype, op))
            return None if inplace else outputs

        return kernel

    def unary(self, name: str, inplace: bool) -> Callable[..., Any]:
        fn = ew.UNARY[name]
        op = f"aten::_foreach_{name}"

        def kernel(tensors: Sequence[torch.Tensor]) -> Any:
            if inplace:
                for t in tensors:
                    _unary_inplace(t, fn)
                return None
            return [self.results.new(fn(read(t)), t.dtype, op) for t in tensors]

        return kernel

    def pointwise(self, fn: Callable[..., Any], inplace: bool, op: str) -> Callable[..., Any]:
        """addcmul/addcdiv: self + value * fn(t1, t2), value a scalar, list or 1-D CPU tensor."""

        def kernel(
            tensors: Sequence[torch.Tensor],
            first: Sequence[torch.Tensor],
            second: Sequence[torch.Tensor],
            value: Any = 1,
        ) -> Any:
            outputs = []
            values = _per_tensor(value, len(tensors))
            for t, a, b, scale in zip(tensors, first, second, values, strict=True):
                term = fn(read(a), read(b))
                term *= np.float32(scale)
                if inplace:
                    _apply(t, np.add, np_view(t) if t.dtype is torch.float32 else read(t), term)
                else:
                    outputs.append(self.results.new(read(t) + term, t.dtype, op))
            return None if inplace else outputs

        return kernel

    def lerp(self, inplace: bool) -> Callable[..., Any]:
        def kernel(
            tensors: Sequence[torch.Tensor], ends: Sequence[torch.Tensor], weight: Any
        ) -> Any:
            outputs = []
            for t, end, w in zip(tensors, ends, _per_tensor(weight, len(tensors)), strict=True):
                values = ew.lerp(read(t), read(end), operand(w))
                if inplace:
                    write(t, values)
                else:
                    outputs.append(self.results.new(values, t.dtype, "aten::_foreach_lerp"))
            return None if inplace else outputs

        return kernel

    def norm(
        self, tensors: Sequence[torch.Tensor], ord: Any = 2, dtype: Any = None
    ) -> list[torch.Tensor]:
        return [
            self.results.new(
                reductions.vector_norm(read(t), float(ord)), dtype or t.dtype, "aten::_foreach_norm"
            )
            for t in tensors
        ]

    def zero_(self, tensors: Sequence[torch.Tensor]) -> None:
        for t in tensors:
            np_view(t)[...] = 0

    def copy_(
        self,
        tensors: Sequence[torch.Tensor],
        sources: Sequence[torch.Tensor],
        non_blocking: bool = False,
    ) -> None:
        for t, src in zip(tensors, sources, strict=True):
            t.copy_(src)

    def fused_adam(self, decoupled: bool) -> Callable[..., Any]:
        def kernel(
            params: Sequence[torch.Tensor],
            grads: Sequence[torch.Tensor],
            exp_avgs: Sequence[torch.Tensor],
            exp_avg_sqs: Sequence[torch.Tensor],
            max_exp_avg_sqs: Sequence[torch.Tensor],
            state_steps: Sequence[torch.Tensor],
            **kw: Any,
        ) -> None:
            if _skip_step(kw.get("found_inf")):
                return
            config = optim.AdamConfig(
                lr=_learning_rate(kw["lr"]),
                beta1=kw["beta1"],
                beta2=kw["beta2"],
                eps=kw["eps"],
                weight_decay=kw["weight_decay"],
                decoupled=decoupled,
                amsgrad=kw["amsgrad"],
                maximize=kw["maximize"],
            )
            scale = _grad_scale(kw.get("grad_scale"))
            for i, param in enumerate(params):
                states = [param, exp_avgs[i], exp_avg_sqs[i]]
                if config.amsgrad:
                    states.append(max_exp_avg_sqs[i])
                arrays = _writable(states)
                step = float(read(state_steps[i]))
                maximum = arrays[3] if config.amsgrad else None
                grad = _scaled(grads[i], scale)
                optim.adam_step(arrays[0], grad, arrays[1], arrays[2], step, config, maximum)
                _write_back(states, arrays)

        return kernel

    def fused_sgd(
        self,
        params: Sequence[torch.Tensor],
        grads: Sequence[torch.Tensor],
        momentum_buffers: Sequence[torch.Tensor],
        **kw: Any,
    ) -> None:
        if _skip_step(kw.get("found_inf")):
            return
        config = optim.SgdConfig(
            lr=_learning_rate(kw["lr"]),
            momentum=kw["momentum"],
            dampening=kw["dampening"],
            weight_decay=kw["weight_decay"],
            nesterov=kw["nesterov"],
            maximize=kw["maximize"],
        )
        scale = _grad_scale(kw.get("grad_scale"))
        for i, param in enumerate(params):
            states = [param, momentum_buffers[i]] if config.momentum else [param]
            arrays = _writable(states)
            buffer = arrays[1] if config.momentum else None
            grad = _scaled(grads[i], scale)
            optim.sgd_step(arrays[0], grad, config, buffer, first_step=kw["is_first_step"])
            _write_back(states, arrays)


def _writable(tensors: Sequence[torch.Tensor]) -> list[np.ndarray]:
    """Arrays an optimizer can update in place: float32 memory itself, else float32 copies."""
    return [np_view(t) if t.dtype is torch.float32 else read(t) for t in tensors]


def _write_back(tensors: Sequence[torch.Tensor], arrays: Sequence[np.ndarray]) -> None:
    """Store the copies `_writable` made for non-float32 tensors."""
    for tensor, array in zip(tensors, arrays, strict=True):
        if tensor.dtype is not torch.float32:
            write(tensor, array)


def _learning_rate(lr: Any) -> float:
    return float(operand(lr)) if isinstance(lr, torch.Tensor) else float(lr)


def _unary_inplace(t: torch.Tensor, fn: Ufunc) -> None:
    if t.dtype is torch.float32 and isinstance(fn, np.ufunc):
        view = np_view(t)
        fn(view, out=view)
    else:
        write(t, fn(read(t)))


def _scaled(grad: torch.Tensor, scale: float) -> np.ndarray:
    """The gradient in float32, divided by the GradScaler's scale when there is one."""
    values = read(grad)
    return values / np.float32(scale) if scale != 1.0 else values


def _skip_step(found_inf: torch.Tensor | None) -> bool:
    return found_inf is not None and bool(read(found_inf).item())


def _grad_scale(grad_scale: torch.Tensor | None) -> float:
    return 1.0 if grad_scale is None else float(read(grad_scale))


def register(ctx: DeviceContext) -> None:
    """Register the foreach and fused optimizer kernels."""
    ops = ForeachOps(ctx)
    reg = ctx.registry
    for name in FOREACH_BINARY:
        for inplace, stem in ((False, f"_foreach_{name}"), (True, f"_foreach_{name}_")):
            packet = getattr(torch.ops.aten, stem)
            names = [f"{stem}.{kind}" for kind in BINARY_KINDS if kind in packet.overloads()]
            reg.impl(names, ops.binary(name, inplace))
    for name in FOREACH_UNARY:
        reg.impl(f"_foreach_{name}", ops.unary(name, False))
        reg.impl(f"_foreach_{name}_", ops.unary(name, True))
    for kind in ("Scalar", "ScalarList", "Tensor"):
        reg.impl(
            f"_foreach_addcmul.{kind}", ops.pointwise(np.multiply, False, "aten::_foreach_addcmul")
        )
        reg.impl(
            f"_foreach_addcmul_.{kind}", ops.pointwise(np.multiply, True, "aten::_foreach_addcmul_")
        )
        reg.impl(
            f"_foreach_addcdiv.{kind}",
            ops.pointwise(ew.true_divide, False, "aten::_foreach_addcdiv"),
        )
        reg.impl(
            f"_foreach_addcdiv_.{kind}",
            ops.pointwise(ew.true_divide, True, "aten::_foreach_addcdiv_"),
        )
    for kind in ("Scalar", "List", "ScalarList"):
        reg.impl(f"_foreach_lerp.{kind}", ops.lerp(False))
        reg.impl(f"_foreach_lerp_.{kind}", ops.lerp(True))
    reg.impl("_foreach_norm.Scalar", ops.norm)
    reg.impl("_foreach_zero_", ops.zero_)
    reg.impl("_foreach_copy_", ops.copy_)
    reg.impl(["_fused_adamw_", "_fused_adamw_.tensor_lr"], ops.fused_adam(decoupled=True))
    reg.impl(["_fused_adam_", "_fused_adam_.tensor_lr"], ops.fused_adam(decoupled=False))
    reg.impl(["_fused_sgd_", "_fused_sgd_.tensor_lr"], ops.fused_sgd)
