"""CUDA generators on the CPU: Philox seed + offset per device, sampling as PyTorch's CUDA kernels.

`rand`, `randn`, `normal_`, `uniform_` and `randint` on logical-CUDA tensors are drawn here and
reproduce GPU values (see `philox.py`). Other random ops on CUDA tensors (dropout, bernoulli,
multinomial, randperm, ...) run on the CPU kernels against the device's own CPU stream, so they
never consume the CPU generator the program uses for data order and module init.
"""

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

from sandbox.runtime.reference import philox
from sandbox.runtime.reference.profiles import GpuProfile

DEFAULT_SEED = 67280421310721
"""`default_rng_seed_val`, the seed of every fresh generator in PyTorch."""
_U64 = (1 << 64) - 1


_Native = torch._C.Generator


class PhiloxGenerator(_Native):
    """A `torch.Generator(device="cuda")` stand-in: Philox (seed, offset) for what is emulated,
    and its own native CPU state (it is a CPU generator to C++) for the device's other ops."""

    def __new__(cls, index: int, seed: int = DEFAULT_SEED) -> "PhiloxGenerator":
        return _Native.__new__(cls, "cpu")  # type: ignore[call-arg]

    def __init__(self, index: int, seed: int = DEFAULT_SEED) -> None:
        self.index = index
        self._seed = 0
        self._offset = 0
        self.manual_seed(seed)

    def _cuda_device(self) -> torch.device:
        """`cuda:N`."""
        return torch.device("cuda", self.index)

    device = property(_cuda_device)

    def manual_seed(self, seed: int) -> "PhiloxGenerator":
        """Seed Philox (offset back to 0) and the device's CPU stream."""
        self._seed = int(seed) & _U64
        self._offset = 0
        _Native.manual_seed(self, self._seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy, as CUDA generators do; returns the seed."""
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
        if len(raw) != 16:
            raise RuntimeError(f"RNG state is wrong size: expected 16 bytes, got {len(raw)}")
        self._seed, self._offset = struct.unpack("<Qq", raw)
        _Native.manual_seed(self, self._seed ^ self._offset)
        return self

    def advance(self, increment: int) -> int:
        """Reserve `increment` values (rounded up to a multiple of 4); returns the old offset."""
        old = self._offset
        self._offset += (increment + 3) // 4 * 4
        return old

    def __repr__(self) -> str:
        return f"<torch._C.Generator object (emulated cuda:{self.index})>"


@contextmanager
def device_stream(generator: PhiloxGenerator) -> Iterator[None]:
    """Run the enclosed CPU random ops against `generator`'s CPU stream."""
    default = torch.default_generator
    saved = default.get_state()
    default.set_state(_Native.get_state(generator))
    try:
        yield
    finally:
        _Native.set_state(generator, default.get_state())
        default.set_state(saved)


def _words(generator: PhiloxGenerator, numel: int, unroll: int, profile: GpuProfile) -> np.ndarray:
    grid = philox.execution_policy(
        numel, unroll, profile.multi_processor_count, profile.max_threads_per_multi_processor
    )
    offset = generator.advance(grid.counter_offset)
    return philox.thread_blocks(
        generator.initial_seed(), offset, grid, philox.iterations_for(numel, grid, unroll)
    )


def _write(out: torch.Tensor, values: np.ndarray | torch.Tensor) -> None:
    """Write element-ordered `values` into `out` in its memory (TensorIterator) order."""
    order = sorted(range(out.dim()), key=lambda d: out.stride(d), reverse=True)
    target = out.permute(order) if out.dim() else out
    if isinstance(values, np.ndarray):
        values = torch.from_numpy(np.ascontiguousarray(values))
    with torch.no_grad():
        target.copy_(values.to(out.dtype).reshape(target.shape))


def fill_uniform(
    out: torch.Tensor, low: float, high: float, gen: PhiloxGenerator, profile: GpuProfile
) -> None:
    """`uniform_(low, high)` on a CUDA tensor: (0, 1] draws, scaled, with the bounds reversed."""
    numel = out.numel()
    if out.dtype == torch.float64:
        blocks = _words(gen, numel, 2, profile)
        draws = philox.element_order(philox.uniform_double_block(blocks), numel)
        values = draws * (high - low) + low
        _write(out, np.where(values == high, low, values))
        return
    blocks = _words(gen, numel, 4, profile)
    draws = philox.element_order(philox.uniform_float(blocks), numel).astype(np.float64)
    low32, high32 = np.float32(low), np.float32(high)
    span = np.float64(np.float32(high32 - low32))
    opmath = (draws * span + np.float64(low32)).astype(np.float32)
    scaled = torch.from_numpy(opmath).to(out.dtype)
    top = torch.tensor(float(high32), dtype=out.dtype)
    bottom = torch.tensor(float(low32), dtype=out.dtype)
    _write(out, torch.where(scaled == top, bottom, scaled))


def fill_normal(
    out: torch.Tensor, mean: float, std: float, gen: PhiloxGenerator, profile: GpuProfile
) -> None:
    """`normal_(mean, std)` on a CUDA tensor (`curand_normal4`, or `normal2_double` for f64)."""
    numel = out.numel()
    if out.dtype == torch.float64:
        blocks = _words(gen, numel, 2, profile)
        draws = philox.element_order(philox.normal_double_block(blocks), numel)
        _write(out, draws * std + mean)
        return
    draws = philox.element_order(philox.normal_float_block(_words(gen, numel, 4, profile)), numel)
    scale, shift = np.float64(np.float32(std)), np.float64(np.float32(mean))
    _write(out, (draws.astype(np.float64) * scale + shift).astype(np.float32))


def fill_randint(
    out: torch.Tensor, low: int, high: int, gen: PhiloxGenerator, profile: GpuProfile
) -> None:
    """`random_(low, high)` / `randint` on a CUDA tensor: `word % range + low`."""
    span = high - low
    if span <= 0:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    numel = out.numel()
    wide_types = (torch.int64, torch.float64, torch.float32, torch.bfloat16)
    if span >= 1 << 32 and out.dtype in wide_types:
        blocks = _words(gen, numel, 2, profile)
        words = philox.element_order(philox.wide_words_block(blocks), numel)
    else:
        words = philox.element_order(_words(gen, numel, 4, profile), numel).astype(np.uint64)
    values = (words % np.uint64(span)).astype(np.int64) + np.int64(low)
    _write(out, values)
