"""Random numbers on the device: device generators, seeding and states, CUDA's Philox values, the
device's own CPU stream for the other random ops. Runs in a child interpreter with the device
active (the values are compared with the CUDA reference's in tests/runtime/test_random.py)."""

import os

import pytest
import torch
from torch.nn import functional as nnf

DEV = os.environ.get("TORCHPORT_TARGET", "tpu")
MOD = torch.get_device_module(DEV)


def test_a_device_generator_belongs_to_the_device() -> None:
    generator = torch.Generator(device=DEV)
    assert isinstance(generator, torch.Generator)
    assert generator.device == torch.device(DEV, 0)
    assert generator.initial_seed() == 67280421310721  # PyTorch's default seed
    assert torch.Generator().device == torch.device("cpu")


def test_seeded_draws_are_the_published_cuda_values() -> None:
    torch.manual_seed(10)  # pytorch#79496: torch.randn(3, device="cuda") on an A100
    assert [round(v, 4) for v in torch.randn(3, device=DEV).tolist()] == [-0.1029, 1.681, -0.2708]
    generator = torch.Generator(device=DEV).manual_seed(42)  # pytorch#158398 (first values)
    values = torch.randn(1, 64, 2048, device=DEV, generator=generator)[0, 0, :3]
    assert [round(v, 4) for v in values.tolist()] == [0.194, 2.1614, -0.1721]


def test_states_replay_draws_and_hold_seed_and_offset() -> None:
    MOD.manual_seed(7)
    state = MOD.get_rng_state()
    assert state.dtype == torch.uint8
    assert state.numel() == 16
    first = torch.rand(5, device=DEV)
    MOD.set_rng_state(state)
    assert torch.equal(first, torch.rand(5, device=DEV))
    assert MOD.initial_seed() == 7
    assert MOD.default_generators[0].get_offset() == 4


def test_manual_seed_seeds_the_device_without_consuming_the_cpu_stream() -> None:
    torch.manual_seed(3)
    cpu_first = torch.rand(4)
    torch.manual_seed(3)
    torch.rand(100, device=DEV)
    nnf.dropout(torch.ones(100, device=DEV), 0.5)
    torch.randperm(10, device=DEV)
    assert torch.equal(torch.rand(4), cpu_first), "device draws must not consume the CPU stream"


def test_dropout_masks_follow_the_device_stream() -> None:
    torch.manual_seed(5)
    first = nnf.dropout(torch.ones(64, device=DEV), 0.5)
    torch.manual_seed(5)
    assert torch.equal(first, nnf.dropout(torch.ones(64, device=DEV), 0.5))
    MOD.manual_seed(6)
    assert not torch.equal(first, nnf.dropout(torch.ones(64, device=DEV), 0.5))


def test_fork_rng_restores_the_device_generator() -> None:
    torch.manual_seed(1)
    with torch.random.fork_rng(device_type=DEV):
        torch.randn(8, device=DEV)
    after = torch.randn(8, device=DEV)
    torch.manual_seed(1)
    assert torch.equal(after, torch.randn(8, device=DEV))


def test_a_cpu_generator_on_a_device_op_fails_as_on_cuda() -> None:
    with pytest.raises(RuntimeError, match=f"Expected a '{DEV}' device type for generator"):
        torch.randn(3, device=DEV, generator=torch.Generator())
    with pytest.raises(RuntimeError, match=f"Expected a '{DEV}' device type for generator"):
        torch.bernoulli(torch.full((3,), 0.5, device=DEV), generator=torch.Generator())


def test_device_generators_are_independent_streams() -> None:
    first, second = torch.Generator(device=DEV), torch.Generator(device=DEV)
    first.manual_seed(11)
    second.manual_seed(11)
    a = torch.randint(0, 1000, (6,), device=DEV, generator=first)
    torch.randn(50, device=DEV, generator=first)
    assert torch.equal(a, torch.randint(0, 1000, (6,), device=DEV, generator=second))
    perm = torch.randperm(9, device=DEV, generator=first)
    assert sorted(perm.tolist()) == list(range(9))


def test_bad_arguments_raise_pytorchs_errors() -> None:
    with pytest.raises(RuntimeError, match=r"normal expects std >= 0\.0"):
        torch.empty(3, device=DEV).normal_(0.0, -1.0)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        torch.randint(5, 5, (2,), device=DEV)
    with pytest.raises(RuntimeError, match="uniform_ expects to return a"):
        torch.empty(3, device=DEV).uniform_(1.0, 0.0)


def test_empty_draws_do_not_move_the_offset() -> None:
    generator = torch.Generator(device=DEV).manual_seed(2)
    torch.randn(0, device=DEV, generator=generator)
    assert generator.get_offset() == 0
