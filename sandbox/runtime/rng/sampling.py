"""Sampling as PyTorch's CUDA kernels do it: `uniform_`, `normal_`, `random_(from, to)` and
`normal(mean, std)` drawn with Philox (`philox.py`) from a `PhiloxGenerator`, laid out for a GPU.

Both runtimes call these on CPU tensors (the reference's logical-CUDA tensors, the emulated
device's CPU aliases), so a CUDA program and its migration draw bit-identical fp32 values.
The layout depends on the GPU profile past one thread wave, as on real GPUs.
"""

import numpy as np
import torch

from sandbox.runtime.reference.profiles import GpuProfile
from sandbox.runtime.rng import philox
from sandbox.runtime.rng.generator import PhiloxGenerator

FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
"""Dtypes `uniform_`/`normal_` are drawn with Philox for (others take the device's CPU stream)."""
INTEGERS = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)
"""Integer dtypes `randint` is drawn with Philox for (with FLOATS)."""


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
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
        )
    numel = out.numel()
    if numel == 0:
        return  # no kernel launch: the offset does not move
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
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    numel = out.numel()
    if numel == 0:
        return
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
    if numel == 0:
        return
    wide_types = (torch.int64, torch.float64, torch.float32, torch.bfloat16)
    if span >= 1 << 32 and out.dtype in wide_types:
        blocks = _words(gen, numel, 2, profile)
        words = philox.element_order(philox.wide_words_block(blocks), numel)
    else:
        words = philox.element_order(_words(gen, numel, 4, profile), numel).astype(np.uint64)
    values = (words % np.uint64(span)).astype(np.int64) + np.int64(low)
    _write(out, values)


def fill_normal_with_tensors(
    out: torch.Tensor,
    mean: torch.Tensor | float,
    std: torch.Tensor | float,
    gen: PhiloxGenerator,
    profile: GpuProfile,
) -> None:
    """`normal(mean, std)` with a tensor mean and/or std into `out` (already of the broadcast
    shape), as CUDA's `normal_out_impl`: standard normals scaled by a tensor std, or normals of a
    float std, then shifted by the mean."""
    if isinstance(std, torch.Tensor):
        if std.numel() and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        fill_normal(out, 0.0, 1.0, gen, profile)
        with torch.no_grad():
            out.mul_(std).add_(mean)
        return
    fill_normal(out, 0.0, float(std), gen, profile)
    with torch.no_grad():
        out.add_(mean)
