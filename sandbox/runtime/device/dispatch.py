"""Registration of the device's Python kernels with PyTorch's dispatcher, with per-op call counts
and PyTorch's device check (Python kernels do not get the one generated C++ kernels do)."""

from collections.abc import Callable, Iterable
from typing import Any

import torch

from sandbox.runtime.device.errors import mixed_devices_error
from sandbox.runtime.metrics import RuntimeMetrics

Kernel = Callable[..., Any]


def check_devices(device: torch.device, args: Iterable[Any]) -> None:
    """Raise PyTorch's mixed-device error if an argument (or a list element) is a CPU tensor with
    dimensions; 0-dim CPU tensors are scalars and allowed, as in PyTorch."""
    for arg in args:
        if isinstance(arg, torch.Tensor):
            if arg.is_cpu and arg.dim():
                raise mixed_devices_error(device, arg.device)
        elif isinstance(arg, list | tuple):
            for item in arg:
                if isinstance(item, torch.Tensor) and item.is_cpu and item.dim():
                    raise mixed_devices_error(device, item.device)


class NativeRegistry:
    """Owns the `torch.library` registrations of the device; one per process."""

    def __init__(self, metrics: RuntimeMetrics, device: torch.device) -> None:
        self.metrics = metrics
        self.device = device
        self.library = torch.library.Library("aten", "IMPL")
        self.registered: set[str] = set()

    def impl(
        self,
        names: str | Iterable[str],
        kernel: Kernel,
        *,
        key: str = "PrivateUse1",
        mixed_devices: bool = False,
        counted: bool = True,
    ) -> None:
        """Register `kernel` for each aten overload in `names` ("add.Tensor", "mm") at `key`.

        Calls are counted as native under `aten::<name>` (unless `counted` is False: the kernel
        counts itself); unless `mixed_devices`, CPU tensor arguments with dimensions raise
        PyTorch's "same device" error first."""
        for name in [names] if isinstance(names, str) else names:
            wrapped = self._counted(name, kernel, mixed_devices) if counted else kernel
            self.library.impl(name, wrapped, key)
            self.registered.add(name)

    def _counted(self, name: str, kernel: Kernel, mixed_devices: bool) -> Kernel:
        label = "aten::" + name.removesuffix(".default")
        count = self.metrics.count_native
        device = self.device
        if mixed_devices:

            def call_mixed(*args: Any, **kwargs: Any) -> Any:
                count(label)
                return kernel(*args, **kwargs)

            return call_mixed

        def call(*args: Any, **kwargs: Any) -> Any:
            count(label)
            check_devices(device, args)
            return kernel(*args, **kwargs)

        return call
