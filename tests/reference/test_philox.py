"""The NumPy port of CUDA's Philox sampling reproduces values published from real GPUs."""

import numpy as np
import pytest

from sandbox.runtime.reference.profiles import resolve_profile
from sandbox.runtime.rng import philox


def normals(seed: int, numel: int, profile: str, offset: int = 0) -> np.ndarray:
    gpu = resolve_profile(profile)
    grid = philox.execution_policy(
        numel, 4, gpu.multi_processor_count, gpu.max_threads_per_multi_processor
    )
    blocks = philox.thread_blocks(seed, offset, grid, philox.iterations_for(numel, grid, 4))
    return philox.element_order(philox.normal_float_block(blocks), numel).astype(np.float64)


def uniforms(seed: int, numel: int, profile: str = "A100") -> np.ndarray:
    gpu = resolve_profile(profile)
    grid = philox.execution_policy(
        numel, 4, gpu.multi_processor_count, gpu.max_threads_per_multi_processor
    )
    blocks = philox.thread_blocks(seed, 0, grid, philox.iterations_for(numel, grid, 4))
    return philox.element_order(philox.uniform_float(blocks), numel).astype(np.float64)


def test_randn_seed_10_matches_pytorch_79496() -> None:
    assert np.round(normals(10, 3, "A100"), 4).tolist() == [-0.1029, 1.6810, -0.2708]


def test_uniform_seed_0_matches_pytorch_47347() -> None:
    expected = [0.3990, 0.5167, 0.0249, 0.9401, 0.9459]
    assert np.round(uniforms(0, 5), 4).tolist() == expected


def test_normal_seed_43_matches_an_rtx_a6000_pytorch_62467() -> None:
    values = normals(43, 3 * 128 * 128, "A6000").reshape(1, 3, 128, 128)[..., 0, 0]
    assert np.round(values, 4).tolist() == [[1.9983, 0.8704, 2.1127]]


def test_rows_of_an_rtx_3060_match_pytorch_158398() -> None:
    values = normals(42, 64 * 2048, "RTX3060").reshape(64, 2048)
    assert np.round(values[0, :3], 4).tolist() == [0.1940, 2.1614, -0.1721]
    assert np.round(values[0, -3:], 4).tolist() == [1.4540, -2.7733, -0.8932]
    assert np.round(values[-1, -3:], 4).tolist() == [-0.4841, 1.2850, -0.0282]


@pytest.mark.parametrize(
    ("profile", "tail"),
    [("A100", [0.1549, -0.6797, -0.1656]), ("H100", [-0.6970, -0.7780, 0.3267])],
)
def test_a100_and_h100_tails_differ_as_pytorch_143086_reports(
    profile: str, tail: list[float]
) -> None:
    values = normals(1, 49 * 12 * 112 * 144, profile)
    assert np.round(values[:3], 4).tolist() == [-0.2963, 2.6764, -0.1408]
    assert np.round(values[-3:], 4).tolist() == tail


def test_offsets_advance_so_consecutive_draws_differ() -> None:
    grid = philox.execution_policy(8, 4, 108, 2048)
    assert grid.counter_offset == 4
    first = philox.thread_blocks(7, 0, grid, 1)
    second = philox.thread_blocks(7, grid.counter_offset, grid, 1)
    assert not np.array_equal(first, second)


def test_uniform_values_lie_in_the_half_open_unit_interval() -> None:
    values = uniforms(3, 100_000)
    assert values.min() > 0.0
    assert values.max() <= 1.0
    assert abs(float(values.mean()) - 0.5) < 0.01


def test_offsets_must_be_multiples_of_four() -> None:
    grid = philox.execution_policy(8, 4, 108, 2048)
    with pytest.raises(ValueError, match="multiple of 4"):
        philox.thread_blocks(7, 2, grid, 1)
