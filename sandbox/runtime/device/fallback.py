"""The boxed CPU fallback: any aten op without a native kernel runs on zero-copy CPU aliases of the
device buffers, is counted per op (torch_xla's "ops not lowered"), and its results are mapped back
to the device: in-place/out= results are the original device tensors, views become device views of
the same storage, and new tensors are adopted onto the device without a copy."""

import contextlib
import functools
import logging
from collections.abc import Iterator
from typing import Any

import torch

from sandbox.runtime.config import RuntimeConfig
from sandbox.runtime.device.dispatch import check_devices
from sandbox.runtime.device.errors import FallbackForbiddenError
from sandbox.runtime.device.policy import DtypePolicy
from sandbox.runtime.device.random import DeviceRandom
from sandbox.runtime.device.tensors import Allocator, cpu_alias
from sandbox.runtime.metrics import RuntimeMetrics
from sandbox.runtime.rng.generator import device_stream

log = logging.getLogger("torchport." + __name__)

MIXED_DEVICE_OPS = frozenset(
    {
        "aten::index.Tensor",
        "aten::index_put_",
        "aten::index_put",
        "aten::_index_put_impl_",
        "aten::_copy_from",
        "aten::_copy_from_and_resize",
        "aten::copy_",
    }
)
"""Ops that take CPU tensors (indices, sources) alongside device tensors, as on CUDA."""
RANDOM_WITHOUT_GENERATOR = frozenset({"aten::native_dropout"})
"""Random ops whose schema has no `generator` argument (they draw from the default one)."""


def _on(value: Any, device_type: str) -> bool:
    return isinstance(value, torch.Tensor) and value.device.type == device_type


@functools.cache
def _generator_argument(op: torch._ops.OpOverload) -> tuple[int, str] | None:
    """(position, name) of `op`'s generator argument, or None when `op` takes none."""
    for position, argument in enumerate(op._schema.arguments):
        if "Generator" in str(argument.type):
            return position, argument.name
    return None


@functools.cache
def _out_arguments(op: torch._ops.OpOverload) -> frozenset[str]:
    """Names of the keyword-only arguments that `op` writes (its out= tensors)."""
    return frozenset(
        argument.name
        for argument in op._schema.arguments
        if argument.kwarg_only and argument.alias_info is not None and argument.alias_info.is_write
    )


def _copy_out(result: torch.Tensor, target: torch.Tensor) -> None:
    """Store a CPU `out=` result in device tensor `target`, resizing it as the op asked."""
    if result.shape != target.shape:
        target.resize_(result.shape)
    cpu_alias(target).copy_(result)


class CpuFallback:
    """The function registered with `Library("_", "IMPL").fallback(..., "PrivateUse1")`."""

    def __init__(
        self,
        config: RuntimeConfig,
        metrics: RuntimeMetrics,
        allocator: Allocator,
        policy: DtypePolicy,
    ) -> None:
        self.config = config
        self.metrics = metrics
        self.allocator = allocator
        self.policy = policy
        self.device = allocator.device
        self.random: DeviceRandom | None = None
        """The device's generators: random ops run against their CPU stream (set by install)."""

    def __call__(self, op: torch._ops.OpOverload, *args: Any, **kwargs: Any) -> Any:
        name = op.name()
        self.enter(name)
        if name not in MIXED_DEVICE_OPS:
            check_devices(self.device, args)
            check_devices(self.device, kwargs.values())
        dtype = kwargs.get("dtype")
        if isinstance(dtype, torch.dtype):
            self.policy.guard(dtype, name)
        return self.run(op, args, kwargs)

    def run_as(
        self,
        op: torch._ops.OpOverload,
        name: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Run `op` on the CPU on behalf of the device op `name` (counted as `name`'s fallback)."""
        self.enter(name)
        return self.run(op, args, kwargs or {})

    def enter(self, name: str) -> None:
        """Count one fallback call of `name`; raise in strict mode, log the first one."""
        first = self.metrics.count_fallback(name)
        if self.config.strict:
            raise FallbackForbiddenError(
                f"{name} has no native {self.device.type} kernel and strict mode "
                "(TORCHPORT_RT_STRICT=1 / TORCHPORT_RT_FALLBACK=error) forbids the CPU fallback; "
                "rewrite the code to avoid this op or allow the fallback"
            )
        if first:
            level = logging.WARNING if self.config.fallback == "warn" else logging.DEBUG
            log.log(level, "%s is not lowered to %s: running it on the CPU", name, self.device)

    def run(self, op: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run `op` on CPU aliases of its device arguments and map the results back.

        `out=` arguments get fresh CPU tensors (a CPU alias of device memory cannot be resized),
        whose results are then copied into the device tensors, resizing those if needed."""
        name = op.name()
        originals: dict[int, torch.Tensor] = {}
        outs: dict[int, torch.Tensor] = {}
        cpu_kwargs = {}
        for key, value in kwargs.items():
            if key in _out_arguments(op) and _on(value, self.device.type):
                fresh = torch.empty(0, dtype=value.dtype)
                outs[id(fresh)] = value
                cpu_kwargs[key] = fresh
            else:
                cpu_kwargs[key] = self._to_cpu(value, originals)
        cpu_args = [self._to_cpu(a, originals) for a in args]
        with self._random_stream(op, args, kwargs):
            result = op(*cpu_args, **cpu_kwargs)
        for fresh in cpu_kwargs.values():
            if id(fresh) in outs:
                _copy_out(fresh, outs[id(fresh)])
        storages = {t.untyped_storage().data_ptr(): t for t in originals.values()}
        originals.update(outs)
        return self._to_device(result, name, originals, storages)

    @contextlib.contextmanager
    def _random_stream(
        self, op: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Iterator[None]:
        """Around a random op: the device's CPU stream stands in for the CPU default generator
        when no generator is given (a given device generator brings its own stream); a generator
        of another device raises PyTorch's error."""
        if self.random is None:
            yield
            return
        argument = _generator_argument(op)
        if argument is None and op.name() not in RANDOM_WITHOUT_GENERATOR:
            yield
            return
        generator = None
        if argument is not None:
            position, key = argument
            generator = kwargs.get(key, args[position] if position < len(args) else None)
        if generator is not None:
            self.random.resolve(generator)
            yield
            return
        with device_stream(self.random.default):
            yield

    def _to_cpu(self, value: Any, originals: dict[int, torch.Tensor]) -> Any:
        if isinstance(value, torch.Tensor):
            if value.device.type != self.device.type:
                return value
            alias = cpu_alias(value)
            originals[id(alias)] = (
                value  # the alias lives in the call's arguments until mapped back
            )
            return alias
        if isinstance(value, list | tuple):
            return type(value)(self._to_cpu(v, originals) for v in value)
        if isinstance(value, torch.device) and value.type == self.device.type:
            return torch.device("cpu")
        return value

    def _to_device(
        self,
        value: Any,
        name: str,
        originals: dict[int, torch.Tensor],
        storages: dict[int, torch.Tensor],
    ) -> Any:
        if isinstance(value, torch.Tensor):
            return self._tensor_to_device(value, name, originals, storages)
        if isinstance(value, list | tuple):
            return type(value)(self._to_device(v, name, originals, storages) for v in value)
        return value

    def _tensor_to_device(
        self,
        value: torch.Tensor,
        name: str,
        originals: dict[int, torch.Tensor],
        storages: dict[int, torch.Tensor],
    ) -> torch.Tensor:
        original = originals.get(id(value))
        if original is not None:  # in-place or out=: the device tensor holds the result
            same_storage = (
                original.untyped_storage().data_ptr() == value.untyped_storage().data_ptr()
            )
            if same_storage and (
                value.shape != original.shape or value.stride() != original.stride()
            ):
                self._set_metadata(original, original.untyped_storage(), value)  # e.g. t_()
            return original
        if value.device.type != "cpu":
            return value
        owner = storages.get(value.untyped_storage().data_ptr())
        if owner is not None:  # a view of a device argument
            storage = owner.untyped_storage()
            return self.allocator.alias(
                storage, value.shape, value.stride(), int(value.storage_offset()), value.dtype
            )
        self.policy.guard(value.dtype, name)
        return self._adopt(value, name)

    def _adopt(self, value: torch.Tensor, name: str) -> torch.Tensor:
        """Move a CPU result onto the device without copying: the device storage is its memory."""
        storage = self._adopt_storage(value, name)
        return self.allocator.alias(
            storage, value.shape, value.stride(), int(value.storage_offset()), value.dtype
        )

    def _adopt_storage(self, value: torch.Tensor, name: str) -> torch.UntypedStorage:
        as_bytes = torch.empty(0, dtype=torch.uint8).set_(value.untyped_storage())
        return self.allocator.storage(as_bytes.numpy(), name)

    @staticmethod
    def _set_metadata(
        original: torch.Tensor, storage: torch.UntypedStorage, value: torch.Tensor
    ) -> None:
        keys = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
        torch.ops.aten.set_.source_Storage_storage_offset.redispatch(
            keys, original, storage, value.storage_offset(), value.shape, value.stride()
        )
