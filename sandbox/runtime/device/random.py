"""The emulated device's random numbers, from the same source as the CUDA reference's.

A correctly migrated program must draw what its CUDA original drew on the reference runtime, so
the device uses `sandbox.runtime.rng` as the reference does: one `PhiloxGenerator` per device
(seeded by `torch.manual_seed` through `torch.<target>.manual_seed_all`), Philox sampling laid
out for the reference's GPU profile for `uniform_`/`normal_`/`random_`/`normal` (so `rand`,
`randn`, `randint`, their `_like` forms and `nn.init` follow), and the generator's own CPU stream
for every other random op, which runs on the CPU fallback (dropout, bernoulli, multinomial,
randperm, ...).

The dispatcher hands kernels a fresh Python wrapper of a generator's C++ object, not the
`PhiloxGenerator` itself; each new generator is therefore passed once through a small custom op,
whose wrapper becomes the one PyTorch returns from then on, and is looked up by that wrapper.
"""

import weakref
from typing import Any

import torch

from sandbox.runtime.reference.profiles import GpuProfile
from sandbox.runtime.rng.generator import PhiloxGenerator

_NAMESPACE = "torchport_rng"
_HANDLE_OP = "generator_handle"


class DeviceRandom:
    """The generators of the emulated device in this process, and the GPU layout they follow."""

    def __init__(self, device: torch.device, gpu: GpuProfile) -> None:
        self.device = device
        self.gpu = gpu
        self._received: list[torch.Generator] = []
        self._library = torch.library.Library(_NAMESPACE, "FRAGMENT")
        self._library.define(f"{_HANDLE_OP}(Tensor anchor, Generator? generator) -> ()")
        self._library.impl(_HANDLE_OP, self._receive, "CPU")
        self._by_handle: dict[int, tuple[weakref.ref[PhiloxGenerator], torch.Generator]] = {}
        self.default = self.new_generator()
        """`torch.<target>.default_generators[0]`: what ops without `generator=` draw from."""

    def _receive(self, anchor: torch.Tensor, generator: torch.Generator | None = None) -> None:
        if generator is not None:
            self._received.append(generator)

    def new_generator(self) -> PhiloxGenerator:
        """A fresh device generator (`torch.Generator(device="tpu")`), known to the kernels."""
        generator = PhiloxGenerator(self.device)
        getattr(torch.ops, _NAMESPACE).generator_handle(torch.empty(0), generator)
        handle = self._received.pop()
        key = id(handle)
        self._by_handle[key] = (weakref.ref(generator), handle)
        weakref.finalize(generator, self._by_handle.pop, key, None)
        return generator

    def generator_for(self, device: Any) -> PhiloxGenerator | None:
        """What `torch.Generator(device)` builds: a device generator for this device, else None."""
        try:
            parsed = torch.device(device) if isinstance(device, str) else device
        except RuntimeError:
            return None
        if not isinstance(parsed, torch.device) or parsed.type != self.device.type:
            return None
        return self.new_generator()

    def resolve(self, generator: torch.Generator | None) -> PhiloxGenerator:
        """The device generator a kernel's `generator` argument names (None: the default);
        another device's generator raises PyTorch's error."""
        if generator is None:
            return self.default
        if isinstance(generator, PhiloxGenerator) and generator.device.type == self.device.type:
            return generator
        entry = self._by_handle.get(id(generator))
        found = entry[0]() if entry is not None and entry[1] is generator else None
        if found is None:
            raise RuntimeError(
                f"Expected a '{self.device.type}' device type for generator but found "
                f"'{generator.device.type}'"
            )
        return found

    def seed_all(self, seed: int) -> None:
        """`torch.<target>.manual_seed_all`: the one physical device's default generator."""
        self.default.manual_seed(int(seed))

    def module_functions(self) -> dict[str, Any]:
        """The RNG functions of `torch.<target>`, as `torch.cuda` has them."""
        default = self.default

        def seed_all() -> None:
            default.seed()

        return {
            "manual_seed": self.seed_all,
            "manual_seed_all": self.seed_all,
            "seed": seed_all,
            "seed_all": seed_all,
            "initial_seed": default.initial_seed,
            "get_rng_state": lambda device=None: default.get_state(),
            "set_rng_state": lambda new_state, device=None: default.set_state(new_state),
            "get_rng_state_all": lambda: [default.get_state()],
            "set_rng_state_all": lambda new_states: default.set_state(new_states[0]),
            "default_generators": (default,),
        }
