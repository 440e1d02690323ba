"""The conditioning rerun's nudge: element-wise, reproducible, and blind to the program's RNG."""

import torch

from sandbox.runtime.reference.perturb import make_hook


def test_nudge_is_elementwise_both_ways_and_reproducible() -> None:
    first, second = torch.ones(1000), torch.ones(1000)
    make_hook(1e-3)(first)
    make_hook(1e-3)({"w": [second]})
    assert torch.equal(first, second)
    ratios = set(first.tolist())
    assert len(ratios) == 2
    assert 300 < int((first > 1).sum()) < 700  # a mixed pattern, not a uniform scale


def test_nudge_leaves_the_programs_random_streams_alone() -> None:
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    make_hook(1e-6)(torch.ones(50))
    assert torch.equal(torch.rand(3), expected)


def test_integer_tensors_are_not_nudged() -> None:
    ids = torch.arange(10)
    make_hook(1e-3)(ids)
    assert torch.equal(ids, torch.arange(10))
