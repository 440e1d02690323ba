"""`torch.compile` on the emulated device, as TorchTPU and TorchNeuron set it up.

With no `backend` given, the target's own backend is used (TorchTPU patches `torch.compile` the
same way): dynamo's graph capture, guards, graph breaks and recompiles are real, and the captured
graphs run on the emulated device op by op. `mode=` options meant for Inductor are dropped with a
warning. An explicit `backend="inductor"` fails as on TorchTPU, since Inductor cannot generate
code for the device.
"""

import functools
import logging
import warnings
from collections.abc import Callable
from typing import Any

import torch

log = logging.getLogger("torchport." + __name__)

INDUCTOR_MESSAGE = (
    "torch.compile(..., backend='inductor') on {target} is experimental and does not yet have "
    "full {target} support; compilation is likely to fail with cryptic errors. Pass "
    "backend='{target}' or do not specify `backend` in torch.compile to use the {target} backend."
)


def install(target: str) -> None:
    """Register the `target` dynamo backend and make it torch.compile's default."""
    from torch._dynamo import register_backend

    def device_backend(
        graph: torch.fx.GraphModule, example_inputs: list[Any]
    ) -> Callable[..., Any]:
        return graph.forward

    register_backend(device_backend, name=target)
    original = torch.compile

    @functools.wraps(original)
    def compile_for_device(
        model: Any = None, *, backend: Any = None, mode: Any = None, **kwargs: Any
    ) -> Any:
        if backend == "inductor":
            raise RuntimeError(INDUCTOR_MESSAGE.format(target=target))
        if mode is not None and backend in (None, target):
            warnings.warn(
                f"torch.compile(mode={mode!r}) is an Inductor/CUDA option; the {target} backend "
                "ignores it",
                stacklevel=2,
            )
        return original(model, backend=backend or target, **kwargs)

    torch.compile = compile_for_device
    log.debug("torch.compile defaults to the %s backend", target)
