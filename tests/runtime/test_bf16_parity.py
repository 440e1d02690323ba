"""bf16 autocast on the emulated device computes what the CUDA reference's bf16 rerun computes:
a training step of an MLP classifier (linear, gelu, cross-entropy, backward) is bit-identical on
both, so a correct bf16 migration is judged against the reference's own rounding, not another."""

import subprocess
from pathlib import Path

import pytest

from tests.runtime.harness import run_script

PROGRAM = """
import torch
import torch.nn.functional as F

dev = "cuda" if torch.cuda.is_available() else torch.accelerator.current_accelerator().type
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.GELU(), torch.nn.Linear(128, 8))
generator = torch.Generator().manual_seed(1)
x = torch.randn(64, 32, generator=generator)
y = torch.randint(0, 8, (64,), generator=generator)
model.to(dev)
with torch.autocast(dev, dtype=torch.bfloat16):
    loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
loss.backward()
print("loss", loss.item().hex())
for name, parameter in model.named_parameters():
    print(name, [value.hex() for value in parameter.grad.cpu().flatten().tolist()[:64]])
"""


def _lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.slow
def test_a_bf16_training_step_is_bit_identical_on_device_and_reference(tmp_path: Path) -> None:
    reference = _lines(run_script(PROGRAM, tmp_path, target="reference"))
    device = _lines(run_script(PROGRAM, tmp_path, target="tpu"))
    assert len(reference) == 5
    assert reference == device
