"""`torch.Generator(device="cuda")` returns an emulated Philox generator (`sandbox.runtime.rng`).

`isinstance(g, torch.Generator)` stays true for native and emulated generators.
"""

from typing import Any

import torch

from sandbox.runtime.reference.state import CPU, ReferenceState
from sandbox.runtime.rng.generator import PhiloxGenerator, patch_generator_class


def patch_generator(state: ReferenceState) -> None:
    """Replace `torch.Generator`: CUDA devices get a `PhiloxGenerator`, the CPU a native one."""

    def new_cuda_generator(device: Any) -> PhiloxGenerator | None:
        index = state.parse_device(device)
        if index is None or index == CPU:
            return None
        return PhiloxGenerator(torch.device("cuda", index))

    patch_generator_class(new_cuda_generator)
