"""The probe recorder inside the runtime: what it records, with no change to user code."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reference.helpers import SITE, base_env
from tools.parity.probeset import ProbeSet

PROGRAM = """
import sys
import torch
import torchport

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
for step in range(3):
    loss = model(torch.ones(2, 3)).pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(f"step {step} loss {loss.item():.6f}")
    print(f"lr={opt.param_groups[0]['lr']}", file=sys.stderr)
torchport.probe("weights", model.weight)
torchport.probe("label", "done")
checkpoint = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3,
              "nested": [torch.arange(3), {"x": 1.5}], "scaler": scaler.state_dict()}
torch.save(checkpoint, "ckpt.pt")
with torch.autocast("cpu", dtype=torch.bfloat16):
    model(torch.ones(1, 3))
"""


def _record(tmp_path: Path, **extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    (tmp_path / "prog.py").write_text(PROGRAM)
    out = tmp_path / "out"
    env = base_env(out, {
        "TORCHPORT_RT_PROBE_PATTERNS": json.dumps([r"loss (\S+)", r"lr=(\S+)"]),
        "TORCHPORT_RT_PROBE_KEY": "k3y", **extra,
    })  # fmt: skip
    command = [sys.executable, "-m", "sandbox.runtime", "--target", "cpu", "prog.py"]
    process = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert process.returncode == 0, process.stderr
    return process, out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ProbeSet]:
    process, out = _record(tmp_path_factory.mktemp("recorder"))
    return process.stdout, ProbeSet.from_folder(out, key=b"k3y")


def test_backward_records_the_loss_without_the_grad_scaler_scale(
    recorded: tuple[str, ProbeSet],
) -> None:
    stdout, found = recorded
    printed = [float(line.split()[-1]) for line in stdout.splitlines()]
    losses = [float(r.array) for r in found.probes["backward"].records]  # type: ignore[arg-type]
    assert losses == pytest.approx(printed, abs=1e-6)
    assert len(losses) == 3


def test_printed_numbers_match_patterns_on_stdout_and_stderr(
    recorded: tuple[str, ProbeSet],
) -> None:
    _, found = recorded
    assert len(found.probes[r"print:loss (\S+)"].records) == 3
    assert [float(r.array) for r in found.probes[r"print:lr=(\S+)"].records] == [0.1] * 3  # type: ignore[arg-type]


def test_saved_objects_are_flattened_to_named_values(recorded: tuple[str, ProbeSet]) -> None:
    _, found = recorded
    names = {name for name in found.probes if name.startswith("save:ckpt.pt:")}
    assert {
        "save:ckpt.pt:model.weight", "save:ckpt.pt:model.bias", "save:ckpt.pt:epoch",
        "save:ckpt.pt:opt.param_groups.0.lr", "save:ckpt.pt:nested.0", "save:ckpt.pt:nested.1.x",
        "save:ckpt.pt:opt.state.0.momentum_buffer",
    } <= names  # fmt: skip
    assert found.probes["save:ckpt.pt:epoch"].records[0].dtype == "int"
    assert found.probes["save:ckpt.pt:nested.0"].records[0].array.tolist() == [0, 1, 2]  # type: ignore[union-attr]


def test_grad_scaler_state_is_tagged_as_loss_scaling(recorded: tuple[str, ProbeSet]) -> None:
    _, found = recorded
    assert found.probes["save:ckpt.pt:scaler.scale"].kind == "grad-scaler"
    assert found.probes["save:ckpt.pt:scaler.growth_factor"].kind == "grad-scaler"
    assert found.probes["save:ckpt.pt:epoch"].kind == "save"
    assert found.probes["save:ckpt.pt:model.weight"].kind == "save"


def test_named_probes_and_autocast_regions(recorded: tuple[str, ProbeSet]) -> None:
    _, found = recorded
    assert found.probes["probe:weights"].records[0].shape == (1, 3)
    assert found.probes["probe:label"].records[0].text == "done"
    assert found.autocast == {"cpu:bfloat16": 1}
    assert found.runtimes == ["cpu"]
    assert found.problems == []


def test_tensors_past_the_budget_are_kept_as_summaries(tmp_path: Path) -> None:
    _, out = _record(tmp_path, TORCHPORT_RT_PROBE_MAX_BYTES="8")
    record = ProbeSet.from_folder(out, key=b"k3y").probes["save:ckpt.pt:model.weight"].records[0]
    assert record.array is None
    assert record.summary is not None
    assert set(record.summary) == {"mean", "std", "min", "max", "l2"}


def test_torchport_probe_is_a_no_op_outside_the_runtime(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "import torchport; torchport.probe('x', 1); print('ok')"]
    env = {"PYTHONPATH": str(SITE), "PATH": "/usr/bin:/bin"}
    process = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert (process.returncode, process.stdout) == (0, "ok\n")


def test_a_program_without_torch_records_without_importing_it(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(
        "import sys\nprint('loss 0.25')\nprint('torch imported', 'torch' in sys.modules)\n"
    )
    out = tmp_path / "out"
    env = base_env(out, {
        "TORCHPORT_TARGET": "cpu",
        "TORCHPORT_RT_PROBE_PATTERNS": json.dumps([r"loss (\S+)"]),
        "TORCHPORT_RT_PROBE_KEY": "k3y",
    })  # fmt: skip
    process = subprocess.run(
        [sys.executable, "plain.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert process.returncode == 0, process.stderr
    assert "torch imported False" in process.stdout
    probes = ProbeSet.from_folder(out, key=b"k3y")
    assert probes.problems == []
    (record,) = probes.probes[r"print:loss (\S+)"].records
    assert record.array is not None
    assert float(record.array) == 0.25
