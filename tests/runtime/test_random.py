"""The emulated device draws what the CUDA reference draws: one program, written for either
device, runs on both runtimes and prints the same bits (fp32 values printed exactly)."""

import subprocess
from pathlib import Path

import pytest

from tests.runtime.harness import run_script

PROGRAM = """
import torch
from torch.nn import functional as nnf

dev = "cuda" if torch.cuda.is_available() else torch.accelerator.current_accelerator().type
mod = torch.get_device_module(dev)

def show(name, value):
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().flatten().tolist()
    print(name, [float(v).hex() if isinstance(v, float) else v for v in value])

torch.manual_seed(10)
show("randn", torch.randn(3, device=dev))
show("rand_wave", torch.rand(300_000, device=dev)[-4:])
generator = torch.Generator(device=dev)
generator.manual_seed(43)
show("normal_", torch.empty(2, 5, device=dev).t().normal_(1.0, 2.0, generator=generator))
show("randint", torch.randint(0, 100, (5,), device=dev, generator=generator))
show("random_", torch.empty(4, device=dev).random_(3, 9))
show("uniform_bf16", torch.empty(6, device=dev, dtype=torch.bfloat16).uniform_(-2, 2))
show("normal_tt", torch.normal(torch.zeros(3, device=dev), torch.full((3,), 2.0, device=dev)))
show("normal_tf", torch.normal(torch.ones(3, device=dev), 0.5))
show("normal_ft", torch.normal(1.0, torch.full((3,), 0.5, device=dev)))
show("normal_ff", torch.normal(2.0, 3.0, size=(3,), device=dev))
show("like", torch.randn_like(torch.empty(3, device=dev)))
show("int_like", torch.randint_like(torch.empty(3, device=dev), 10))
show("init", torch.nn.init.kaiming_uniform_(torch.empty(2, 3, device=dev)))
show("dropout", nnf.dropout(torch.ones(16, device=dev), 0.5))
show("bernoulli", torch.bernoulli(torch.full((8,), 0.3, device=dev)))
show("randperm", torch.randperm(8, device=dev))
show("randperm_gen", torch.randperm(8, device=dev, generator=generator))
show("multinomial", torch.multinomial(torch.ones(10, device=dev), 4))
show("exponential", torch.empty(3, device=dev).exponential_())
show("cpu_untouched", torch.rand(2))
show("state", generator.get_state())
show("default_state", mod.get_rng_state())
torch.manual_seed(0)
for cell in (torch.nn.LSTM, torch.nn.GRU):
    model = cell(4, 5, 2, dropout=0.5).to(dev)
    x = torch.randn(3, 2, 4, device=dev, requires_grad=True)
    out, _ = model(x)
    out.pow(2).sum().backward()
    show(cell.__name__ + "_dropout_mask", out.detach() == 0)
    show(cell.__name__ + "_grad_zeros", x.grad == 0)
mod.manual_seed(99)
show("reseeded", torch.randn(2, device=dev))
"""


def _lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.slow
def test_the_device_draws_the_values_the_cuda_reference_draws(tmp_path: Path) -> None:
    reference = _lines(run_script(PROGRAM, tmp_path, target="reference"))
    device = _lines(run_script(PROGRAM, tmp_path, target="tpu"))
    assert len(reference) == 27
    mismatches = [(r, d) for r, d in zip(reference, device, strict=True) if r != d]
    assert not mismatches, mismatches


@pytest.mark.slow
def test_the_rng_profile_switch_changes_the_layout_past_one_wave(tmp_path: Path) -> None:
    default = _lines(run_script(PROGRAM, tmp_path, target="tpu"))
    h100 = _lines(run_script(PROGRAM, tmp_path, target="tpu", TORCHPORT_RT_RNG_GPU="H100"))
    assert default[0] == h100[0]  # three values: inside one thread wave on both GPUs
    assert default[1] != h100[1]  # 300k values: past the A100's wave, laid out differently
    bad = run_script(PROGRAM, tmp_path, target="tpu", TORCHPORT_RT_RNG_GPU="K80")
    assert bad.returncode == 2
    assert "TORCHPORT_RT_RNG_GPU='K80' is not a GPU profile" in bad.stderr
