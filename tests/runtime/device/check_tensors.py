"""Device tensors: transfers, dtypes, storage-sharing views, in-place and out= semantics, autograd
through views, serialization, copies, the mixed-device error and the memory/sync counters.
Runs in a child interpreter with the device active (see tests/runtime/harness.py)."""

import copy
import io
import os

import pytest
import torch
from torch import nn

DEV = os.environ.get("TORCHPORT_TARGET", "tpu")
MOD = torch.get_device_module(DEV)


def test_round_trip_and_bf16_rounding_match_cpu() -> None:
    values = torch.randn(5, 7) * 100
    on_device = values.to(DEV)
    assert on_device.device == torch.device(DEV, 0)
    assert torch.equal(on_device.cpu(), values)
    bf16 = on_device.to(torch.bfloat16)
    assert torch.equal(bf16.cpu(), values.to(torch.bfloat16))
    assert torch.equal(bf16.float().cpu(), values.to(torch.bfloat16).float())
    assert torch.equal(on_device.to(torch.int32).cpu(), values.to(torch.int32))


def test_views_share_storage_and_in_place_writes_reach_the_base() -> None:
    base = torch.arange(24.0).reshape(4, 6).to(DEV)
    view = base[1:, ::2]
    assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert view.data_ptr() == base.data_ptr() + 6 * 4
    assert view._base is base
    view.mul_(-1)
    base.t()[0].add_(100)
    expected = torch.arange(24.0).reshape(4, 6)
    expected[1:, ::2] *= -1
    expected.t()[0] += 100
    assert torch.equal(base.cpu(), expected)


def test_out_into_a_slice_leaves_neighbours_untouched_and_out_resizes() -> None:
    big = torch.zeros(3, 4, device=DEV)
    torch.add(torch.ones(4, device=DEV), 1.0, out=big[1])
    assert big.cpu().tolist() == [[0.0] * 4, [2.0] * 4, [0.0] * 4]
    out = torch.empty(0, device=DEV)
    torch.cumprod(torch.arange(1.0, 5.0, device=DEV), 0, out=out)  # a fallback op with out=
    assert out.cpu().tolist() == [1.0, 2.0, 6.0, 24.0]


def test_autograd_through_views_and_in_place_ops_matches_cpu() -> None:
    def program(x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y[:, 1:3].mul_(3)
        y.t()[0].add_(1)
        return (y.diagonal().sum() + (y.sin() * y).sum()) / y.numel()

    cpu = torch.randn(4, 5, requires_grad=True)
    device = cpu.detach().to(DEV).requires_grad_()
    program(cpu).backward()
    program(device).backward()
    torch.testing.assert_close(device.grad.cpu(), cpu.grad, rtol=1e-6, atol=1e-7)


def test_mixed_devices_raise_pytorchs_error_but_cpu_scalars_and_indices_work() -> None:
    on_device = torch.ones(3, device=DEV)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(3) + on_device
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.mm(torch.ones(3, 3), torch.ones(3, 3, device=DEV))
    assert (torch.tensor(2.0) * on_device).cpu().tolist() == [2.0, 2.0, 2.0]
    assert on_device[torch.tensor([0, 2])].cpu().tolist() == [1.0, 1.0]


def test_printing_shows_the_device() -> None:
    text = repr(torch.tensor([1.5, 2.0]).to(DEV))
    assert text == f"tensor([1.5000, 2.0000], device='{DEV}:0')"


def test_save_and_load_in_both_directions() -> None:
    model = nn.Linear(3, 2).to(DEV)
    buffer = io.BytesIO()
    torch.save({"state": model.state_dict(), "t": torch.arange(4.0, device=DEV)}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert loaded["t"].device.type == DEV
    assert torch.equal(loaded["state"]["weight"].cpu(), model.weight.detach().cpu())
    buffer.seek(0)
    assert torch.load(buffer, map_location="cpu")["t"].device.type == "cpu"
    host = io.BytesIO()
    torch.save(torch.ones(2), host)
    host.seek(0)
    assert torch.load(host, map_location=DEV).device.type == DEV


def test_deepcopy_and_storages_get_their_own_device_memory() -> None:
    original = torch.arange(6.0, device=DEV)
    duplicate = copy.deepcopy(original)
    duplicate.add_(1)
    assert original.cpu().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    storage = torch.UntypedStorage(8, device=DEV)
    assert storage.device.type == DEV
    assert storage.nbytes() == 8


def test_tied_weights_stay_tied_after_to() -> None:
    embedding = nn.Embedding(5, 3)
    head = nn.Linear(3, 5, bias=False)
    head.weight = embedding.weight
    model = nn.ModuleDict({"embedding": embedding, "head": head}).to(DEV)
    assert model["head"].weight is model["embedding"].weight


def test_dataloader_with_pinned_memory() -> None:
    dataset = torch.utils.data.TensorDataset(torch.arange(8.0).reshape(8, 1))
    loader = torch.utils.data.DataLoader(dataset, batch_size=4, pin_memory=True)
    sums = [batch.to(DEV, non_blocking=True).sum().item() for (batch,) in loader]
    assert sums == [6.0, 22.0]


def test_other_device_index_is_an_invalid_ordinal() -> None:
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        torch.ones(2, device=f"{DEV}:1")


def test_host_syncs_transfers_and_memory_are_counted() -> None:
    before = MOD.metrics()
    allocated = MOD.memory_allocated()
    t = torch.ones(256, device=DEV)
    assert MOD.memory_allocated() == allocated + 1024
    t.sum().item()
    t[:2].tolist()
    bool(t[0] > 0)
    after = MOD.metrics()
    assert after["host_syncs"] - before["host_syncs"] >= 3
    assert after["transfers"]["device_to_host"] >= before["transfers"]["device_to_host"] + 3
    del t
    assert MOD.memory_allocated() == allocated
    assert after["memory"]["peak_bytes"] >= allocated + 1024
