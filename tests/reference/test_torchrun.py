"""DDP with NCCL under `torchrun --nproc_per_node=2` runs on the reference (gloo underneath)."""

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reference.helpers import PROGRAMS, base_env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _torchrun(tmp: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    work, out = tmp / "work", tmp / "out"
    work.mkdir(parents=True)
    shutil.copy(PROGRAMS / "ddp.py", work / "ddp.py")
    env = base_env(out, {"TORCHPORT_TARGET": "reference"})
    command = [
        sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
        f"--master_port={_free_port()}", "ddp.py",
    ]  # fmt: skip
    process = subprocess.run(
        command, cwd=work, env=env, capture_output=True, text=True, timeout=600
    )
    return process, out


@pytest.mark.slow
def test_ddp_with_nccl_runs_on_two_ranks_deterministically(tmp_path: Path) -> None:
    first, out = _torchrun(tmp_path / "one")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "rank 0 allreduce 3.0 on cuda:0" in first.stdout
    assert "rank 1 allreduce 3.0 on cuda:1" in first.stdout
    for rank in (0, 1):
        probes = json.loads((out / f"probes.{rank}.json").read_text())
        assert probes["rank"] == rank
        assert len(probes["probes"]["backward"]["records"]) == 3
    assert "save:ddp.pt:weight" in json.loads((out / "probes.0.json").read_text())["probes"]
    second, out_again = _torchrun(tmp_path / "two")
    assert second.returncode == 0, second.stderr[-3000:]
    for name in ("probes.0.json", "probes.1.json", "probes.0.npz"):
        assert (out / name).read_bytes() == (out_again / name).read_bytes()
