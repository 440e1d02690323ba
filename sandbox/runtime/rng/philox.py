"""CUDA's Philox4x32-10 sampling, ported to NumPy, as PyTorch's CUDA kernels use it.

PyTorch draws random tensors on a GPU with one curand Philox state per thread:
`curand_init(seed, subsequence=thread, offset)`; a grid-stride loop gives element
`li = thread + T * (iteration * unroll + component)` the `component`-th value of the thread's
`iteration`-th `curand4` block. The grid size depends on the GPU (SM count and threads per SM),
so seeded values past one thread wave differ between GPU models, exactly as on real GPUs.

Pure NumPy: `sampling.py` turns these arrays into tensors. Everything here is deterministic.
"""

from dataclasses import dataclass

import numpy as np

BLOCK_SIZE = 256
"""Threads per block of PyTorch's distribution kernels."""
ENGINE_CALLS = 4
"""`curand4_engine_calls`: 32-bit values per Philox counter."""

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO_POW32_INV = 2.0**-32
_TWO_POW32_INV_2PI = float(np.float32(2.0**-32 * 2.0 * np.pi))
_TWO_POW53_INV = 2.0**-53


@dataclass(frozen=True)
class Grid:
    """The launch shape of one distribution kernel: total threads and the Philox offset used."""

    threads: int
    counter_offset: int


def execution_policy(numel: int, unroll: int, sm_count: int, threads_per_sm: int) -> Grid:
    """PyTorch's `calc_execution_policy`: grid capped at one wave of resident blocks."""
    blocks = (numel + BLOCK_SIZE - 1) // BLOCK_SIZE
    blocks = min(sm_count * (threads_per_sm // BLOCK_SIZE), blocks)
    threads = BLOCK_SIZE * max(blocks, 1)
    offset = ((max(numel, 1) - 1) // (threads * unroll) + 1) * ENGINE_CALLS
    return Grid(threads=threads, counter_offset=offset)


def philox4x32_10(counter: np.ndarray, seed: int) -> np.ndarray:
    """Ten Philox rounds on `counter` (uint32, shape (4, n)); returns the (4, n) output words."""
    c0, c1, c2, c3 = (counter[i].astype(np.uint64) for i in range(4))
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for round_index in range(10):
        if round_index:
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        p0 = _M0 * c0
        p1 = _M1 * c2
        c0, c1, c2, c3 = (
            (p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0),
            p1 & _MASK32,
            (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1),
            p0 & _MASK32,
        )
    return np.stack([c0, c1, c2, c3]).astype(np.uint32)


def thread_blocks(seed: int, offset: int, grid: Grid, iterations: int) -> np.ndarray:
    """The `curand4` words of every thread and iteration: uint32 array (iterations, threads, 4).

    `offset` is the generator's Philox offset (a multiple of 4) when the kernel starts.
    """
    if offset % ENGINE_CALLS:
        raise ValueError(f"Philox offset {offset} is not a multiple of {ENGINE_CALLS}")
    thread = np.arange(grid.threads, dtype=np.uint64)
    blocks = []
    for iteration in range(iterations):
        low = offset // ENGINE_CALLS + iteration
        counter = np.zeros((4, grid.threads), dtype=np.uint64)
        counter[0] = low & 0xFFFFFFFF
        counter[1] = (low >> 32) & 0xFFFFFFFF
        counter[2] = thread & _MASK32
        counter[3] = thread >> np.uint64(32)
        blocks.append(philox4x32_10(counter, seed).T)
    return np.stack(blocks)


def element_order(values: np.ndarray, numel: int) -> np.ndarray:
    """Flatten per-thread values (iterations, threads, unroll) into element order `li`."""
    return values.transpose(0, 2, 1).reshape(-1)[:numel]


def iterations_for(numel: int, grid: Grid, unroll: int) -> int:
    """How many grid-stride iterations cover `numel` elements."""
    return (max(numel, 1) - 1) // (grid.threads * unroll) + 1


def uniform_float(words: np.ndarray) -> np.ndarray:
    """curand's `_curand_uniform`: (0, 1] floats, `x * 2^-32 + 2^-33` with one rounding (FMA)."""
    exact = words.astype(np.float32).astype(np.float64) * _TWO_POW32_INV + _TWO_POW32_INV / 2
    return exact.astype(np.float32)


def uniform_double(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """curand's `_curand_uniform_double_hq`: 53 random bits from two words, (0, 1]."""
    bits = low.astype(np.uint64) ^ (high.astype(np.uint64) << np.uint64(21))
    return bits.astype(np.float64) * _TWO_POW53_INV + _TWO_POW53_INV / 2


def box_muller_float(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """curand's float Box-Muller: (sin, cos) pair of normals from two words."""
    u = uniform_float(x)
    v_exact = y.astype(np.float32).astype(np.float64) * _TWO_POW32_INV_2PI
    v = (v_exact + _TWO_POW32_INV_2PI / 2).astype(np.float32)
    s = np.sqrt(np.float32(-2.0) * np.log(u)).astype(np.float32)
    sin = np.sin(v.astype(np.float64)).astype(np.float32)
    cos = np.cos(v.astype(np.float64)).astype(np.float32)
    return sin * s, cos * s


def box_muller_double(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """curand's double Box-Muller over one `curand4` block (..., 4): (sin, cos) normals."""
    u = uniform_double(words[..., 0], words[..., 1])
    bits = words[..., 2].astype(np.uint64) ^ (words[..., 3].astype(np.uint64) << np.uint64(21))
    v = bits.astype(np.float64) * (2 * _TWO_POW53_INV) + _TWO_POW53_INV
    s = np.sqrt(-2.0 * np.log(u))
    return np.sin(np.pi * v) * s, np.cos(np.pi * v) * s


def normal_float_block(words: np.ndarray) -> np.ndarray:
    """`curand_normal4`: four float normals per block (..., 4) → (..., 4)."""
    s0, c0 = box_muller_float(words[..., 0], words[..., 1])
    s1, c1 = box_muller_float(words[..., 2], words[..., 3])
    return np.stack([s0, c0, s1, c1], axis=-1)


def normal_double_block(words: np.ndarray) -> np.ndarray:
    """`curand_normal2_double`: two double normals per block (..., 4) → (..., 2)."""
    sin, cos = box_muller_double(words)
    return np.stack([sin, cos], axis=-1)


def uniform_double_block(words: np.ndarray) -> np.ndarray:
    """`curand_uniform2_double`: two doubles per block (..., 4) → (..., 2)."""
    first = uniform_double(words[..., 0], words[..., 1])
    second = uniform_double(words[..., 2], words[..., 3])
    return np.stack([first, second], axis=-1)


def wide_words_block(words: np.ndarray) -> np.ndarray:
    """Two 64-bit integers per block (..., 4) → (..., 2): `random_from_to` over big ranges."""
    w = words.astype(np.uint64)
    first = (w[..., 0] << np.uint64(32)) | w[..., 1]
    second = (w[..., 2] << np.uint64(32)) | w[..., 3]
    return np.stack([first, second], axis=-1)
