import numpy as np
import torch

from sandbox.kernels.precision import bf16_bits_from_f32, f32_from_bf16_bits, round_to


def test_bf16_rounding_matches_torch_bit_for_bit() -> None:
    special = np.array(
        [0.0, -0.0, 1.0, 1.00390625, 1.01171875, 3.0e38, np.inf, -np.inf, np.nan, 1e-40, -2.5],
        dtype=np.float32,
    )
    rng = np.random.default_rng(0)
    ties = (rng.integers(0, 2**16, 2000, dtype=np.uint32) << 16 | 0x8000).view(np.float32)
    values = np.concatenate([special, rng.standard_normal(5000).astype(np.float32) * 100, ties])
    finite = values[~np.isnan(values)]
    theirs = torch.from_numpy(finite).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(bf16_bits_from_f32(finite), theirs)
    # NaN payloads are not bit-stable in torch's vectorised path; only "still NaN" is the contract
    nans = values[np.isnan(values)]
    assert nans.size
    assert np.isnan(f32_from_bf16_bits(bf16_bits_from_f32(nans))).all()


def test_bf16_widening_is_exact_and_round_to_float16_matches_torch() -> None:
    bits = np.arange(0, 2**16, 7, dtype=np.uint16)
    theirs = torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(f32_from_bf16_bits(bits), theirs)
    values = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    half = torch.from_numpy(values).half().float().numpy()
    np.testing.assert_array_equal(round_to(values, "float16"), half)
