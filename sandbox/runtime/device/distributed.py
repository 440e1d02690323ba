"""torch.distributed for the emulated device: a process-group backend named after the target that
runs every collective through gloo on zero-copy CPU views of the device buffers, so collectives
write straight into device memory. `init_process_group()` without a backend, `backend="tpu"`
(or "neuron") and DDP with `device_ids` use it; `nccl` fails as on a TPU/Trainium host."""

import datetime
import functools
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import _create_work_from_future  # type: ignore[attr-defined]

from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.tensors import cpu_alias

COLLECTIVES = {
    "allreduce": "allreduce",
    "allreduce_coalesced": "allreduce_coalesced",
    "allgather": "allgather",
    "_allgather_base": "_allgather_base",
    "all_gather_single": "_allgather_base",
    "allgather_coalesced": "allgather_coalesced",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "gather": "gather",
    "scatter": "scatter",
    "reduce_scatter": "reduce_scatter",
    "_reduce_scatter_base": "_reduce_scatter_base",
    "reduce_scatter_single": "_reduce_scatter_base",
    "alltoall": "alltoall",
    "alltoall_base": "alltoall_base",
    "all_to_all_single": "alltoall_base",
    "send": "send",
    "recv": "recv",
    "recv_anysource": "recv_anysource",
}
"""ProcessGroup method -> the gloo method that runs it."""


def _to_host(value: Any, target: str) -> Any:
    """Device tensors (also inside lists) replaced by CPU aliases of their memory."""
    if isinstance(value, torch.Tensor):
        return cpu_alias(value) if value.device.type == target else value
    if isinstance(value, list):
        return [_to_host(item, target) for item in value]
    return value


class DeviceProcessGroup(dist.ProcessGroup):
    """A process group whose collectives run on gloo over CPU aliases of device tensors.

    Each collective waits for gloo and returns a completed Work whose future holds the caller's
    own (device) output tensors, so DDP's reducer keeps device gradients."""

    def __init__(
        self, store: dist.Store, rank: int, size: int, timeout: datetime.timedelta, target: str
    ) -> None:
        super().__init__(rank, size)  # type: ignore[call-arg]
        self.target = target
        self.gloo = dist.ProcessGroupGloo(store, rank, size, timeout)

    def getBackendName(self) -> str:  # noqa: N802  # the c10d method name
        return self.target

    def barrier(self, opts: Any = None) -> Any:
        options = dist.BarrierOptions()
        if opts is not None:
            options.timeout = opts.timeout
        self.gloo.barrier(options).wait()  # type: ignore[attr-defined]
        return _completed([])

    def _run(self, name: str, *args: Any) -> Any:
        work = getattr(self.gloo, name)(*[_to_host(a, self.target) for a in args])
        work.wait()
        first = args[0] if args else []
        return _completed(_flatten(first if isinstance(first, list) else [first]))


def _flatten(outputs: list[Any]) -> list[torch.Tensor]:
    flat: list[torch.Tensor] = []
    for item in outputs:
        if isinstance(item, list):
            flat.extend(_flatten(item))
        elif isinstance(item, torch.Tensor):
            flat.append(item)
    return flat


def _completed(tensors: list[torch.Tensor]) -> Any:
    future: torch.futures.Future[list[torch.Tensor]] = torch.futures.Future()
    future.set_result(tensors)
    return _create_work_from_future(future)


def _forwarder(name: str, gloo_name: str) -> Callable[..., Any]:
    def collective(self: DeviceProcessGroup, *args: Any) -> Any:
        return self._run(gloo_name, *args)

    collective.__name__ = name
    return collective


for _name, _gloo_name in COLLECTIVES.items():
    setattr(DeviceProcessGroup, _name, _forwarder(_name, _gloo_name))


def register_backend(ctx: DeviceContext) -> None:
    """Register the `<target>` backend for the device (and CPU) and barrier before teardown."""
    target = ctx.target

    def create(
        store: dist.Store, rank: int, size: int, timeout: datetime.timedelta
    ) -> DeviceProcessGroup:
        return DeviceProcessGroup(store, rank, size, timeout, target)

    dist.Backend.register_backend(target, create, devices=[target, "cpu"])
    dist.Backend.default_device_backend_map[target] = target
    _barrier_before_destroy()


def _barrier_before_destroy() -> None:
    """Gloo aborts ranks in a teardown race (reference-runtime §5): synchronise ranks first."""
    original = dist.destroy_process_group

    @functools.wraps(original)
    def destroy_process_group(group: Any = None) -> None:
        if dist.is_initialized() and (group is None or group is dist.group.WORLD):
            dist.barrier()
        original(group)

    dist.destroy_process_group = destroy_process_group
