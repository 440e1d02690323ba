"""`torch.Generator(device="cuda")` returns an emulated Philox generator.

`torch.Generator` is replaced by a class whose metaclass builds a native generator for CPU
devices and a `PhiloxGenerator` for CUDA ones, and keeps `isinstance(g, torch.Generator)` true
for both.
"""

from typing import Any

import torch

from sandbox.runtime.reference.rng import PhiloxGenerator
from sandbox.runtime.reference.state import CPU, ReferenceState


def patch_generator(state: ReferenceState) -> None:
    """Replace `torch.Generator` (the native class stays reachable as `torch._C.Generator`)."""
    native = torch._C.Generator

    class GeneratorMeta(type):
        def __call__(cls, device: Any = "cpu") -> Any:
            index = state.parse_device(device)
            if index is not None and index != CPU:
                return PhiloxGenerator(index)
            return native(device)

        def __instancecheck__(cls, instance: object) -> bool:
            return isinstance(instance, native | PhiloxGenerator)

        def __subclasscheck__(cls, subclass: type) -> bool:
            return issubclass(subclass, native | PhiloxGenerator)

    class Generator(metaclass=GeneratorMeta):
        """torch.Generator: native on the CPU, Philox-emulated on CUDA devices."""

    Generator.__module__ = "torch"
    torch.Generator = Generator  # type: ignore[misc,assignment]
