"""Volatile and ill-conditioned probes are found by comparing reference reruns."""

from tests.parity.factories import probe, probes
from tools.parity.classify import ill_conditioned_probes, volatile_probes
from tools.parity.spec import ParitySpec


def test_probes_that_differ_between_runs_or_appear_once_are_volatile() -> None:
    first = probes(probe("a", 1.0), probe("time", 12.0), probe("once", 1.0))
    second = probes(probe("a", 1.0), probe("time", 13.5))
    assert set(volatile_probes(first, second)) == {"time", "once"}


def test_probes_that_move_past_their_tolerance_under_a_nudge_are_ill_conditioned() -> None:
    base = probes(probe("stable", [1.0, 2.0]), probe("chaotic", [1.0, 2.0]), probe("t", 5.0))
    nudged = probes(probe("stable", [1.000001, 2.0]), probe("chaotic", [1.3, 2.0]), probe("t", 5.0))
    found = ill_conditioned_probes(base, nudged, ParitySpec(), {"t": "volatile"})
    assert set(found) == {"chaotic"}
    assert "0.3" in found["chaotic"]
