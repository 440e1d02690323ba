"""Comparing one probe of the migrated run with the reference (pure functions).

fp32 against fp32: element-wise `|c - r| <= atol + rtol * |r|`. When the migrated run used lower
precision and the reference has its precision reruns: the ratio
`R = ||c - f|| / max(||l_k - f||, ||atol + rtol * |f|||)` of the migrated error to the error the
original itself makes at that precision (f: reference in fp32, l_k: the reference's
low-precision reruns, as written and with inputs nudged: one realization alone underestimates
that error, the original against itself reached R = 3.9); pass while R <= r_pass, marginal up
to r_marginal. Integers and strings are exact.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from tools.parity.probeset import Probe, Record

Verdict = Literal["pass", "marginal", "fail"]
SUMMARY_KEYS = ("mean", "std", "min", "max", "l2")


@dataclass(frozen=True)
class Tolerance:
    """The limits one probe is held to."""

    rtol: float
    atol: float
    r_pass: float = 1.2
    r_marginal: float = 2.0


@dataclass(frozen=True)
class ProbeRow:
    """The comparison of one probe: the table row of the report."""

    probe: str
    verdict: Verdict
    max_abs: float | None = None
    max_rel: float | None = None
    ratio: float | None = None
    note: str = ""
    reason: str | None = None
    """Why it failed: missing, length, shape, dtype, value, nan_inf, degenerate, mismatch."""


def _failed(probe: str, reason: str, note: str) -> ProbeRow:
    return ProbeRow(probe, "fail", note=note, reason=reason)


def _values(records: list[Record]) -> np.ndarray:
    parts = []
    for record in records:
        if record.summary is not None:
            parts.append(np.array([record.summary.get(k, 0.0) for k in SUMMARY_KEYS]))
        elif record.array is not None:
            parts.append(np.asarray(record.array, dtype=np.float64).reshape(-1))
    return np.concatenate(parts) if parts else np.zeros(0)


def _dtype_ok(reference: str, candidate: str, substitutions: dict[str, str]) -> bool:
    return candidate == reference or substitutions.get(reference) == candidate


def structure_problem(
    name: str, reference: Probe, candidate: Probe | None, substitutions: dict[str, str]
) -> ProbeRow | None:
    """A failing row when the probe is missing or its records differ in kind, count or shape."""
    if candidate is None:
        return _failed(name, "missing", "not recorded by the migrated run")
    ref_n, cand_n = len(reference.records), len(candidate.records)
    if ref_n != cand_n:
        unit = "steps" if reference.kind == "backward" else "records"
        note = f"{ref_n} {unit} in the reference, {cand_n} in the migrated run"
        return _failed(name, "length", note)
    for index, (ref, cand) in enumerate(zip(reference.records, candidate.records, strict=True)):
        where = f" (record {index})" if ref_n > 1 else ""
        if (ref.text is None) != (cand.text is None):
            return _failed(name, "dtype", f"{ref.dtype} in the reference, {cand.dtype}{where}")
        if ref.text is not None and ref.text != cand.text:
            return _failed(name, "value", f"{ref.text!r} vs {cand.text!r}{where}")
        if ref.shape != cand.shape:
            return _failed(name, "shape", f"shape {list(ref.shape)} vs {list(cand.shape)}{where}")
        if not _dtype_ok(ref.dtype, cand.dtype, substitutions):
            return _failed(name, "dtype", f"dtype {ref.dtype} vs {cand.dtype}{where}")
    return None


def _value_guards(name: str, ref: np.ndarray, cand: np.ndarray) -> ProbeRow | None:
    """NaN/Inf where the reference is finite; all-zero or constant where the reference varies."""
    ref_bad, cand_bad = ~np.isfinite(ref), ~np.isfinite(cand)
    new_bad = int((cand_bad & ~ref_bad).sum())
    if new_bad:
        return _failed(name, "nan_inf", f"{new_bad} NaN/Inf values where the reference has none")
    finite_ref, finite_cand = ref[~ref_bad], cand[~cand_bad]
    cand_flat = finite_cand.size > 1 and np.ptp(finite_cand) == 0
    if cand_flat and finite_ref.size > 1 and np.ptp(finite_ref) > 0:
        what = "all zeros" if not finite_cand.any() else "constant"
        return _failed(name, "degenerate", f"{what} where the reference varies")
    return None


def _first_failure(
    records: list[Record], bad: np.ndarray, ref: np.ndarray, cand: np.ndarray
) -> str:
    if not bad.any():
        return ""
    first = int(np.argmax(bad))
    sizes = np.cumsum([max(1, _values([r]).size) for r in records])
    record = int(np.searchsorted(sizes, first, side="right"))
    where = f" at step {record}" if len(records) > 1 else ""
    return f"first differs{where}: {ref[first]:.6g} vs {cand[first]:.6g}"


def compare_values(
    name: str,
    reference: Probe,
    candidate: Probe,
    tolerance: Tolerance,
    *,
    fp32: Probe | None = None,
    lows: Sequence[Probe | None] = (),
    exact: bool = False,
) -> ProbeRow:
    """Compare two structurally equal probes (see `structure_problem`) value by value."""
    ref, cand = _values(reference.records), _values(candidate.records)
    guard = _value_guards(name, ref, cand)
    if guard is not None:
        return guard
    both_nan = np.isnan(ref) & np.isnan(cand)
    diff = np.where(both_nan, 0.0, np.abs(cand - ref))
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
    max_rel = float((diff / scale).max()) if diff.size else 0.0
    rtol, atol = (0.0, 0.0) if exact else (tolerance.rtol, tolerance.atol)
    limit = atol + rtol * np.abs(ref)
    ratio = _ratio(cand, fp32, lows, rtol, atol) if not exact else None
    if ratio is not None:
        verdict = _ratio_verdict(ratio, tolerance)
        note = "" if verdict == "pass" else f"R = {ratio:.3g}: error beyond the original's own"
        reason = "mismatch" if verdict == "fail" else None
        return ProbeRow(name, verdict, max_abs, max_rel, ratio, note, reason)
    bad = diff > limit
    if bad.any():
        note = _first_failure(reference.records, bad, ref, cand)
        return ProbeRow(name, "fail", max_abs, max_rel, None, note, "mismatch")
    return ProbeRow(name, "pass", max_abs, max_rel)


def _ratio_verdict(ratio: float, tolerance: Tolerance) -> Verdict:
    if ratio <= tolerance.r_pass:
        return "pass"
    return "marginal" if ratio <= tolerance.r_marginal else "fail"


def _ratio(
    cand: np.ndarray, fp32: Probe | None, lows: Sequence[Probe | None], rtol: float, atol: float
) -> float | None:
    present = [low for low in lows if low is not None]
    if fp32 is None or not present:
        return None
    full = _values(fp32.records)
    lowers = [_values(low.records) for low in present]
    if any(array.shape != cand.shape for array in (full, *lowers)):
        return None
    if not all(np.isfinite(array).all() for array in (full, cand, *lowers)):
        return None
    floor = float(np.linalg.norm(atol + rtol * np.abs(full)))
    spread = max(float(np.linalg.norm(lower - full)) for lower in lowers)
    denominator = max(spread, floor, np.finfo(np.float64).tiny)
    return float(np.linalg.norm(cand - full)) / denominator


def _statistic(statistic: str, values: np.ndarray) -> float:
    if statistic == "mean":
        return float(np.mean(values))
    if statistic == "std":
        return float(np.std(values))
    return float(np.linalg.norm(values))


def compare_statistic(
    name: str, reference: Probe, candidate: Probe, statistic: str, rtol: float, atol: float
) -> ProbeRow:
    """Compare an ill-conditioned probe by one statistic of all its values."""
    ref, cand = _values(reference.records), _values(candidate.records)
    guard = _value_guards(name, ref, cand)
    if guard is not None:
        return guard
    ref_stat, cand_stat = _statistic(statistic, ref), _statistic(statistic, cand)
    gap = abs(cand_stat - ref_stat)
    verdict: Verdict = "pass" if gap <= atol + rtol * abs(ref_stat) else "fail"
    note = f"ill-conditioned: compared by {statistic} ({ref_stat:.6g} vs {cand_stat:.6g})"
    relative = gap / max(abs(ref_stat), 1e-300)
    reason = None if verdict == "pass" else "mismatch"
    return ProbeRow(name, verdict, gap, relative, None, note, reason)
