"""Classifying the reference's probes before any comparison (pure functions).

- volatile: anything that differs between two reference runs (the second run shifts memory
  figures and timings with a salt): timings, memory figures, what derives from them;
- ill-conditioned: what moves past its tolerance when every input is nudged by a relative
  `perturbation`: such a probe cannot be compared value by value.
"""

from collections.abc import Mapping

import numpy as np

from tools.parity.compare import Tolerance, compare_values, structure_problem
from tools.parity.probeset import Probe, ProbeSet, Record
from tools.parity.spec import ParitySpec


def _same_record(first: Record, second: Record) -> bool:
    if first.text is not None or second.text is not None:
        return first.text == second.text
    if first.summary is not None or second.summary is not None:
        return first.summary == second.summary
    if first.array is None or second.array is None:
        return first.array is second.array
    return first.array.shape == second.array.shape and bool(
        np.array_equal(first.array, second.array, equal_nan=True)
    )


def identical(first: Probe, second: Probe) -> bool:
    """Same kind, same number of records, bitwise-equal values."""
    return (
        first.kind == second.kind
        and len(first.records) == len(second.records)
        and all(_same_record(a, b) for a, b in zip(first.records, second.records, strict=True))
    )


def volatile_probes(base: ProbeSet, repeat: ProbeSet) -> dict[str, str]:
    """Probe → why it is volatile, for every probe the two reference runs disagree on."""
    volatile = {}
    for name in sorted(set(base.probes) | set(repeat.probes)):
        first, second = base.probes.get(name), repeat.probes.get(name)
        if first is None or second is None:
            volatile[name] = "recorded in only one of two reference runs"
        elif not identical(first, second):
            volatile[name] = "differs between two reference runs (timing, memory or unseeded)"
    return volatile


def tolerance_of(spec: ParitySpec, probe: str) -> Tolerance:
    """The fp32 tolerance and R thresholds that apply to `probe`."""
    override = spec.tolerance_for(probe)
    rtol, atol = spec.rtol_atol(probe)
    return Tolerance(
        rtol=rtol,
        atol=atol,
        r_pass=override.r_pass or spec.r_pass,
        r_marginal=override.r_marginal or spec.r_marginal,
    )


def ill_conditioned_probes(
    base: ProbeSet, perturbed: ProbeSet, spec: ParitySpec, skip: Mapping[str, str]
) -> dict[str, str]:
    """Probe → how far it moved, for every probe an input nudge pushes past its tolerance."""
    fragile = {}
    for name, probe in base.probes.items():
        if name in skip:
            continue
        moved = perturbed.probes.get(name)
        problem = structure_problem(name, probe, moved, {})
        if problem is not None or moved is None:
            note = problem.note if problem else "not recorded"
            fragile[name] = f"changes under a {spec.perturbation:g} input nudge: {note}"
            continue
        row = compare_values(name, probe, moved, tolerance_of(spec, name))
        if row.verdict != "pass":
            fragile[name] = (
                f"moves by up to {row.max_rel or 0:.2g} (relative) under a "
                f"{spec.perturbation:g} input nudge"
            )
    return fragile
