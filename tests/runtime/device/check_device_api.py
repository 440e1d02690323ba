"""The device as programs see it: torch.tpu, torch.accelerator, events, memory statistics,
autocast policies, what is missing on a TPU host (CUDA, Triton, nccl) and the distributed
backend (device random numbers: check_random.py). Runs in a child interpreter with the device active."""

import importlib
import os

import pytest
import torch
import torch.distributed as dist
from torch.nn import functional as nnf

DEV = os.environ.get("TORCHPORT_TARGET", "tpu")
MOD = torch.get_device_module(DEV)


def test_device_module_and_accelerator_see_the_device() -> None:
    assert MOD.__name__ == f"torch.{DEV}"
    assert MOD.is_available()
    assert MOD.device_count() == 1
    assert torch.accelerator.current_accelerator() == torch.device(DEV)
    assert torch.accelerator.is_available()
    assert torch.accelerator.device_count() == 1
    assert torch.accelerator.current_device_index() == 0
    assert getattr(getattr(torch.tensor([1.0]), DEV)(), f"is_{DEV}")
    assert MOD.get_device_properties().total_memory == MOD.profile.memory_budget


def test_synchronize_events_and_memory_statistics() -> None:
    torch.accelerator.synchronize()
    MOD.synchronize()
    torch.accelerator.reset_peak_memory_stats()
    base = torch.accelerator.memory_allocated()
    start, end = torch.Event(enable_timing=True), torch.Event(enable_timing=True)
    start.record()
    held = torch.ones(1024, device=DEV)
    end.record()
    end.synchronize()
    assert isinstance(start, torch.Event)
    assert start.elapsed_time(end) >= 0.0
    assert torch.accelerator.memory_allocated() == base + 4096
    assert torch.accelerator.max_memory_allocated() >= base + 4096
    assert torch.accelerator.memory_stats()["allocated_bytes.all.current"] == base + 4096
    free, total = torch.accelerator.get_memory_info()
    assert total == MOD.profile.memory_budget
    assert free == total - base - 4096
    del held
    assert MOD.memory_allocated() == base
    with pytest.raises(RuntimeError, match="enable_timing"):
        torch.Event().elapsed_time(torch.Event())


def test_cpu_events_are_still_native_events() -> None:
    assert type(torch.Event(device="cpu")).__name__ == "Event"


def test_autocast_defaults_to_bf16_and_mirrors_cuda_policies() -> None:
    linear = torch.nn.Linear(4, 3).to(DEV)
    x = torch.randn(2, 4, device=DEV)
    target = torch.tensor([0, 2], device=DEV)
    assert torch.get_autocast_dtype(DEV) is torch.bfloat16
    with torch.autocast(DEV):
        logits = linear(x)
        loss = nnf.cross_entropy(logits, target)
        normed = nnf.layer_norm(logits, [3])
        summed = logits.sum()
        norm = torch.norm(logits)
        promoted = torch.addcmul(x, x.to(torch.bfloat16), x)
        attention = nnf.scaled_dot_product_attention(*(torch.randn(1, 2, 3, 4, device=DEV),) * 3)
    assert logits.dtype is torch.bfloat16
    assert attention.dtype is torch.bfloat16
    assert loss.dtype is torch.float32
    assert normed.dtype is torch.float32
    assert summed.dtype is torch.float32
    assert norm.dtype is torch.float32
    assert promoted.dtype is torch.float32
    loss.backward()
    assert linear.weight.grad.dtype is torch.float32
    with torch.autocast(DEV), pytest.raises(RuntimeError, match="unsafe to autocast"):
        nnf.binary_cross_entropy(torch.rand(3, device=DEV), torch.rand(3, device=DEV))


def test_cuda_is_absent_and_fails_like_on_a_tpu_host() -> None:
    assert not torch.cuda.is_available()
    assert torch.cuda.device_count() == 0
    with pytest.raises((AssertionError, RuntimeError), match="not compiled with CUDA"):
        torch.zeros(1, device="cuda")


def test_import_triton_fails_with_an_explanation() -> None:
    with pytest.raises(ModuleNotFoundError, match="Triton kernels target NVIDIA/AMD GPUs"):
        importlib.import_module("triton")


def test_distributed_default_backend_is_the_device_backend_and_nccl_is_missing() -> None:
    assert dist.get_default_backend_for_device(DEV) == DEV
    assert dist.get_default_backend_for_device(torch.device(DEV, 0)) == DEV
    assert not dist.is_nccl_available()


def test_single_process_group_runs_collectives_on_device_tensors(tmp_path: object) -> None:
    store = dist.HashStore()
    dist.init_process_group(DEV, store=store, rank=0, world_size=1)
    try:
        value = torch.tensor([3.0, 4.0], device=DEV)
        dist.all_reduce(value)
        gathered = [torch.zeros(2, device=DEV)]
        dist.all_gather(gathered, value)
        assert value.device.type == DEV
        assert gathered[0].cpu().tolist() == [3.0, 4.0]
    finally:
        dist.destroy_process_group()


def test_torch_compile_defaults_to_the_device_backend() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))
    model = model.to(DEV)
    x = torch.randn(4, 8).to(DEV)
    with pytest.warns(UserWarning, match="ignores it"):
        compiled = torch.compile(model, mode="max-autotune", fullgraph=True)
    out = compiled(x)
    assert out.device.type == DEV
    assert torch.equal(out.cpu(), model(x).cpu())
    out.sum().backward()  # autograd through the captured graph
    assert model[0].weight.grad is not None


def test_inductor_is_refused_as_on_torchtpu() -> None:
    with pytest.raises(RuntimeError, match=f"backend='inductor'\\) on {DEV} is experimental"):
        torch.compile(torch.nn.Linear(2, 2), backend="inductor")
