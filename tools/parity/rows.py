"""One row per reference probe: which comparison applies, and its outcome (pure).

- volatile probes and those the spec ignores are excluded, with the reason;
- a migrated run in lower precision, when the reference has its fp32 and low-precision reruns,
  is judged by R against the fp32 rerun, every probe (ill-conditioned ones too: R measures
  the error against the original's own error at that precision);
- otherwise probes are compared in fp32 against the reference's fp32 values (the fp32 rerun
  when the original used autocast), ill-conditioned ones by the spec's statistic;
- integers and strings must be equal.
"""

from dataclasses import dataclass, field

from tools.parity.classify import tolerance_of
from tools.parity.compare import (
    ProbeRow,
    Tolerance,
    compare_statistic,
    compare_values,
    structure_problem,
)
from tools.parity.model import Reference
from tools.parity.probeset import Probe, ProbeSet
from tools.parity.spec import ParitySpec

DEVICE_TARGETS = ("tpu", "neuron")
SCALER_STATE_KIND = "grad-scaler"
"""Probe kind the recorder gives values saved from `GradScaler.state_dict()`."""
EXACT_DTYPES = frozenset({"int", "bool", "str", "int64", "int32", "int16", "int8", "uint8"})
LOW_DTYPES = frozenset({"bfloat16", "float16"})


@dataclass
class Rows:
    """The rows, the excluded probes with their reasons, and notes for the report."""

    rows: list[ProbeRow] = field(default_factory=list)
    excluded: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def uses_low_precision(probes: ProbeSet) -> bool:
    """The run autocast or recorded bf16/fp16 values."""
    return bool(probes.autocast) or any(
        record.dtype in LOW_DTYPES for probe in probes.probes.values() for record in probe.records
    )


def dtype_substitutions(target: str, reference: Reference) -> dict[str, str]:
    """Dtype changes a correct migration makes: no fp16/f64 on TPU and Trainium."""
    allowed = {"float16": "bfloat16", "float64": "float32"} if target in DEVICE_TARGETS else {}
    if reference.low_precision == "bf16":
        allowed["float16"] = "bfloat16"
    return allowed


def probe_rows(reference: Reference, probes: ProbeSet, spec: ParitySpec, target: str) -> Rows:
    """Compare every reference probe with the migrated run's."""
    out = Rows()
    low = uses_low_precision(probes)
    reruns = (reference.fp32, reference.low) if low else (None, None)
    ratio = reruns[0] is not None and reruns[1] is not None
    if low and not ratio:
        out.notes.append(
            f"the migrated run uses lower precision and the reference has no precision reruns: "
            f"compared with rtol {spec.low_precision_rtol:g}"
        )
    substitutions = dtype_substitutions(target, reference)
    for name, base in reference.base.probes.items():
        candidate = probes.probes.get(name)
        reason = _exclusion(name, reference, spec, ratio)
        if reason is None and base.kind == SCALER_STATE_KIND and candidate is None:
            reason = "GradScaler state: the migration does not scale losses (bf16 needs no scaler)"
        if reason is not None:
            out.excluded.append({"probe": name, "reason": reason})
            continue
        problem = structure_problem(name, base, candidate, substitutions)
        if problem is not None or candidate is None:
            out.rows.append(problem or ProbeRow(name, "fail", reason="missing"))
        elif reruns[0] is not None and reruns[1] is not None:
            lows = [reruns[1]] + ([reference.low_nudged] if reference.low_nudged else [])
            row = _ratio_row(name, base, candidate, reruns[0], lows, spec)
            out.rows.append(_mark_ill(row, name in reference.ill_conditioned))
        else:
            out.rows.append(_fp32_row(name, reference, candidate, spec, widen=low))
    return out


def _exclusion(name: str, reference: Reference, spec: ParitySpec, ratio: bool) -> str | None:
    if name in reference.volatile:
        return f"volatile: {reference.volatile[name]}"
    override = spec.tolerance_for(name)
    if override.compare == "ignore":
        return "ignored by the task spec"
    statistic = override.statistic or spec.statistic
    if name in reference.ill_conditioned and not ratio and statistic == "none":
        return f"ill-conditioned, not comparable: {reference.ill_conditioned[name]}"
    return None


def _fp32_probe(name: str, reference: Reference) -> Probe:
    fp32 = reference.fp32.probes.get(name) if reference.fp32 is not None else None
    return fp32 or reference.base.probes[name]


def _ratio_row(
    name: str,
    base: Probe,
    candidate: Probe,
    fp32: ProbeSet,
    lows: list[ProbeSet],
    spec: ParitySpec,
) -> ProbeRow:
    full = fp32.probes.get(name)
    lowers = [low.probes.get(name) for low in lows]
    exact = base.records[0].dtype in EXACT_DTYPES if base.records else False
    tolerance = tolerance_of(spec, name)
    return compare_values(
        name, full or base, candidate, tolerance, fp32=full, lows=lowers, exact=exact
    )


def _mark_ill(row: ProbeRow, ill_conditioned: bool) -> ProbeRow:
    if not ill_conditioned or row.verdict == "fail":
        return row
    note = f"{row.note} (ill-conditioned)".strip()
    return ProbeRow(row.probe, row.verdict, row.max_abs, row.max_rel, row.ratio, note, row.reason)


def _fp32_row(
    name: str, reference: Reference, candidate: Probe, spec: ParitySpec, *, widen: bool
) -> ProbeRow:
    expected = _fp32_probe(name, reference)
    override = spec.tolerance_for(name)
    if name in reference.ill_conditioned or override.compare == "statistic":
        statistic = override.statistic or spec.statistic
        _, atol = spec.rtol_atol(name)
        return compare_statistic(name, expected, candidate, statistic, spec.statistic_rtol, atol)
    tolerance = tolerance_of(spec, name)
    if widen:
        tolerance = Tolerance(max(tolerance.rtol, spec.low_precision_rtol), tolerance.atol)
    exact = expected.records[0].dtype in EXACT_DTYPES if expected.records else False
    return compare_values(name, expected, candidate, tolerance, exact=exact)
