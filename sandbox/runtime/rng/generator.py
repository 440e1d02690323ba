"""Accelerator generators on the CPU: a Philox (seed, offset) pair plus a CPU stream of their own.

`PhiloxGenerator` stands in for a device generator (`torch.Generator(device="cuda")` on the
reference, `torch.Generator(device="tpu")` on the emulated device). To C++ it is a CPU
generator: its native Mersenne-Twister state is the device's own CPU stream, which the random
ops that are not drawn with Philox (dropout, bernoulli, multinomial, randperm, ...) consume
through `device_stream`, so they never touch the CPU generator that data order and module init
use. Both runtimes seed it the same way, so a CUDA program and its migration draw equal values.
"""

import os
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch

DEFAULT_SEED = 67280421310721
"""`default_rng_seed_val`, the seed of every fresh generator in PyTorch."""
STATE_BYTES = 16
"""A device generator's state: the seed then the Philox offset, little-endian 64-bit each."""
_U64 = (1 << 64) - 1

_Native = torch._C.Generator


class PhiloxGenerator(_Native):
    """A device generator: Philox (seed, offset) for what is emulated, and its own native CPU
    state (it is a CPU generator to C++) for the device's other random ops."""

    def __new__(cls, device: torch.device, seed: int = DEFAULT_SEED) -> "PhiloxGenerator":
        return _Native.__new__(cls, "cpu")  # type: ignore[call-arg]

    def __init__(self, device: torch.device, seed: int = DEFAULT_SEED) -> None:
        self._device = device
        self.index = device.index or 0
        self._seed = 0
        self._offset = 0
        self.manual_seed(seed)

    def _emulated_device(self) -> torch.device:
        """The device this generator belongs to (`cuda:N`, `tpu:0`)."""
        return self._device

    device = property(_emulated_device)

    def manual_seed(self, seed: int) -> "PhiloxGenerator":
        """Seed Philox (offset back to 0) and the device's CPU stream."""
        self._seed = int(seed) & _U64
        self._offset = 0
        _Native.manual_seed(self, self._seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy, as device generators do; returns the seed."""
        self.manual_seed(int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1))
        return self._seed

    def initial_seed(self) -> int:
        """The seed set last."""
        return self._seed

    def get_offset(self) -> int:
        """The Philox offset (32-bit values consumed, rounded up to multiples of 4)."""
        return self._offset

    def set_offset(self, offset: int) -> "PhiloxGenerator":
        """Move the Philox offset."""
        self._offset = int(offset)
        return self

    def get_state(self) -> torch.Tensor:
        """16 bytes, as on CUDA: the seed then the offset (little-endian 64-bit)."""
        raw = struct.pack("<Qq", self._seed, self._offset)
        return torch.frombuffer(bytearray(raw), dtype=torch.uint8).clone()

    def set_state(self, new_state: torch.Tensor) -> "PhiloxGenerator":
        """Restore a state from `get_state` (the CPU stream is reseeded from it)."""
        raw = bytes(new_state.to(torch.uint8).reshape(-1).tolist())
        if len(raw) != STATE_BYTES:
            raise RuntimeError(
                f"RNG state is wrong size: expected {STATE_BYTES} bytes, got {len(raw)}"
            )
        self._seed, self._offset = struct.unpack("<Qq", raw)
        _Native.manual_seed(self, self._seed ^ self._offset)
        return self

    def clone_state(self) -> "PhiloxGenerator":
        """A new generator of the same device in the same state."""
        twin = PhiloxGenerator(self._device, self._seed)
        twin._offset = self._offset
        _Native.set_state(twin, _Native.get_state(self))
        return twin

    def advance(self, increment: int) -> int:
        """Reserve `increment` values (rounded up to a multiple of 4); returns the old offset."""
        old = self._offset
        self._offset += (increment + 3) // 4 * 4
        return old

    def __repr__(self) -> str:
        return f"<torch._C.Generator object (emulated {self._device})>"


@contextmanager
def device_stream(generator: _Native) -> Iterator[None]:
    """Run the enclosed CPU random ops against `generator`'s native (CPU stream) state."""
    default = torch.default_generator
    saved = default.get_state()
    default.set_state(_Native.get_state(generator))
    try:
        yield
    finally:
        _Native.set_state(generator, default.get_state())
        default.set_state(saved)


DeviceGenerators = Callable[[Any], PhiloxGenerator | None]
"""Maps the `device` given to `torch.Generator` to a new device generator, or None for the CPU."""


def patch_generator_class(new_device_generator: DeviceGenerators) -> None:
    """Replace `torch.Generator` (the native class stays reachable as `torch._C.Generator`):
    `new_device_generator(device)` builds the emulated devices' generators, and
    `isinstance(g, torch.Generator)` stays true for both kinds."""
    native = torch._C.Generator

    class GeneratorMeta(type):
        def __call__(cls, device: Any = "cpu") -> Any:
            emulated = new_device_generator(device)
            return native(device) if emulated is None else emulated

        def __instancecheck__(cls, instance: object) -> bool:
            return isinstance(instance, native)

        def __subclasscheck__(cls, subclass: type) -> bool:
            return issubclass(subclass, native)

    class Generator(metaclass=GeneratorMeta):
        """torch.Generator: native on the CPU, Philox-emulated on the accelerator."""

    Generator.__module__ = "torch"
    torch.Generator = Generator  # type: ignore[misc,assignment]
