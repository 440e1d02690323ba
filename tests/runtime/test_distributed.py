"""torchrun with two workers on the emulated device: DDP with device_ids averages gradients
across ranks through the device's process-group backend, and every worker writes its metrics."""

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.runtime.harness import REPO, read_metrics, runtime_env

WORKER = """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS = 3


def batch(rank, step):
    gen = torch.Generator().manual_seed(100 * rank + step)
    return torch.randn(4, 8, generator=gen), torch.randn(4, 1, generator=gen)


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 1))


dist.init_process_group()  # the default backend of the accelerator
rank, local = dist.get_rank(), int(os.environ["LOCAL_RANK"])
torch.tpu.set_device(local)
device = torch.device("tpu", local)
model = DDP(make_model().to(device), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(STEPS):
    x, y = batch(rank, step)
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()

# the same training on CPU with the gradient averaged over both ranks' batches
reference = make_model()
ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
for step in range(STEPS):
    ref_opt.zero_grad()
    for r in range(2):
        x, y = batch(r, step)
        (torch.nn.functional.mse_loss(reference(x), y) / 2).backward()
    ref_opt.step()
worst = max(
    (p.detach().cpu() - q.detach()).abs().max().item()
    for p, q in zip(model.module.parameters(), reference.parameters())
)
total = torch.tensor([float(rank + 1)], device=device)
dist.all_reduce(total)
# one file per rank: both workers share torchrun's stdout, where their lines can interleave
with open(os.path.join(os.environ["WORKER_RESULTS"], f"rank{rank}.txt"), "w") as result:
    result.write(f"rank={rank} worst={worst:.3g} allreduce={total.item()}")
dist.destroy_process_group()
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_torchrun_two_workers_ddp_on_the_device(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(textwrap.dedent(WORKER), encoding="utf-8")
    out = tmp_path / "out"
    results = tmp_path / "results"
    results.mkdir()
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node=2",
        f"--master_port={_free_port()}",
        str(script),
    ]
    done = subprocess.run(
        command,
        cwd=REPO,
        env=runtime_env("tpu", TORCHPORT_RT_OUT=str(out), WORKER_RESULTS=str(results)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = [path.read_text(encoding="utf-8") for path in sorted(results.glob("rank*.txt"))]
    assert [line.split()[0] for line in lines] == ["rank=0", "rank=1"]
    for line in lines:
        fields = dict(item.split("=") for item in line.split())
        assert float(fields["worst"]) < 1e-5
        assert float(fields["allreduce"]) == 3.0
    for name in ("metrics.0.json", "metrics.1.json", "metrics.json"):
        metrics = read_metrics(out, name)
        assert metrics["native_calls"] > 0, name
    assert read_metrics(out, "metrics.json") == read_metrics(out, "metrics.0.json")
