"""Per-probe comparisons: tolerances, R, exact values, and the value guards."""

import numpy as np
import pytest

from tests.parity.factories import probe
from tools.parity.compare import Tolerance, compare_statistic, compare_values, structure_problem

FP32 = Tolerance(rtol=1e-4, atol=1e-5)


def test_values_within_tolerance_pass_with_their_errors() -> None:
    row = compare_values("x", probe("x", [1.0, 2.0]), probe("x", [1.00005, 2.0]), FP32)
    assert row.verdict == "pass"
    assert row.max_abs == pytest.approx(5e-5)
    assert row.max_rel == pytest.approx(5e-5)


def test_trajectory_failure_names_the_first_step_that_differs() -> None:
    reference = probe("backward", 3.0, 2.5, 2.0, kind="backward")
    candidate = probe("backward", 3.0, 2.5, 2.1, kind="backward")
    row = compare_values("backward", reference, candidate, FP32)
    assert (row.verdict, row.reason) == ("fail", "mismatch")
    assert "at step 2: 2 vs 2.1" in row.note


def test_integers_must_be_equal() -> None:
    row = compare_values("n", probe("n", 10), probe("n", 10.0001), FP32, exact=True)
    assert row.verdict == "fail"


def test_nan_where_the_reference_is_finite_fails_as_nan_inf() -> None:
    row = compare_values("x", probe("x", [1.0, 2.0]), probe("x", [1.0, np.nan]), FP32)
    assert row.reason == "nan_inf"


def test_nan_at_the_same_place_as_the_reference_is_equal() -> None:
    row = compare_values("x", probe("x", [1.0, np.nan]), probe("x", [1.0, np.nan]), FP32)
    assert row.verdict == "pass"


@pytest.mark.parametrize(
    ("values", "what"), [([0.0, 0.0, 0.0], "all zeros"), ([2.0] * 3, "constant")]
)
def test_flat_outputs_where_the_reference_varies_are_degenerate(
    values: list[float], what: str
) -> None:
    row = compare_values("x", probe("x", [1.0, 2.0, 3.0]), probe("x", values), FP32)
    assert (row.reason, row.note.split(" where")[0]) == ("degenerate", what)


def test_flat_outputs_matching_a_flat_reference_pass() -> None:
    row = compare_values("bias", probe("bias", [0.0] * 4), probe("bias", [0.0] * 4), FP32)
    assert row.verdict == "pass"


def _ratio_case(scale: float, lows: int = 1) -> str:
    full = np.linspace(1.0, 2.0, 50)
    error = np.sin(np.arange(50.0)) * 1e-2
    low_runs = [probe("w", full + error)] + [probe("w", full - 0.5 * error)] * (lows - 1)
    row = compare_values(
        "w", probe("w", full), probe("w", full + scale * error), FP32,
        fp32=probe("w", full), lows=low_runs,
    )  # fmt: skip
    assert row.ratio == pytest.approx(scale)
    return row.verdict


def test_ratio_thresholds_pass_marginal_fail() -> None:
    assert _ratio_case(1.1) == "pass"
    assert _ratio_case(1.5) == "marginal"
    assert _ratio_case(3.0) == "fail"


def test_ratio_uses_the_largest_low_precision_error_of_the_original() -> None:
    full, error = np.ones(10), np.full(10, 1e-2)
    row = compare_values(
        "w", probe("w", full), probe("w", full + 1.5 * error), FP32,
        fp32=probe("w", full), lows=[probe("w", full + error), probe("w", full + 2 * error)],
    )  # fmt: skip
    assert row.ratio == pytest.approx(0.75)
    assert row.verdict == "pass"


def test_ratio_floor_keeps_exact_precision_outputs_comparable() -> None:
    full = np.ones(4)
    row = compare_values(
        "w", probe("w", full), probe("w", full + 1e-9), FP32, fp32=probe("w", full),
        lows=[probe("w", full)],
    )  # fmt: skip
    assert row.verdict == "pass"
    assert row.ratio is not None
    assert row.ratio < 1e-3


def test_structure_problems_each_have_a_reason() -> None:
    ref = probe("x", [1.0, 2.0], [3.0, 4.0])
    assert structure_problem("x", ref, None, {}).reason == "missing"  # type: ignore[union-attr]
    assert structure_problem("x", ref, probe("x", [1.0, 2.0]), {}).reason == "length"  # type: ignore[union-attr]
    other_shape = probe("x", [1.0, 2.0, 3.0], [3.0, 4.0, 5.0])
    assert structure_problem("x", ref, other_shape, {}).reason == "shape"  # type: ignore[union-attr]
    half = probe("x", [1.0, 2.0], [3.0, 4.0], dtype="float16")
    assert structure_problem("x", ref, half, {}).reason == "dtype"  # type: ignore[union-attr]
    assert structure_problem("x", ref, probe("x", "a", "b"), {}).reason == "dtype"  # type: ignore[union-attr]
    assert structure_problem("s", probe("s", "a"), probe("s", "b"), {}).reason == "value"  # type: ignore[union-attr]


def test_dtype_substitutions_a_target_requires_are_accepted() -> None:
    ref = probe("x", [1.0], dtype="float16")
    assert (
        structure_problem("x", ref, probe("x", [1.0], dtype="bfloat16"), {"float16": "bfloat16"})
        is None
    )


def test_statistic_comparison_for_ill_conditioned_probes() -> None:
    ref = probe("x", [1.0, -1.0, 0.5])
    shuffled = probe("x", [-1.0, 0.5, 1.0])
    assert compare_statistic("x", ref, shuffled, "mean", 0.05, 1e-5).verdict == "pass"
    shifted = probe("x", [2.0, 0.0, 1.5])
    assert compare_statistic("x", ref, shifted, "mean", 0.05, 1e-5).verdict == "fail"
