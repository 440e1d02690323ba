"""Tiny CUDA-first cases written into a temporary suite folder, for the harness's tests.

Each takes seconds on the reference runtime; together they give every outcome the harness
reports: a case that reaches parity, one whose task expects the wrong verdict, one that hangs, one
torchport refuses (a file that does not parse).
"""

import textwrap
from pathlib import Path

TRAIN = """\
import torch
import torch.nn.functional as F

torch.manual_seed({seed})
torch.backends.cudnn.benchmark = True
model = torch.nn.Linear(8, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 8).cuda()
y = torch.randn(32, 2).cuda()
for step in range(4):
    loss = F.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {{step}} loss {{loss.item():.6f}}")
torch.cuda.synchronize()
torch.save(model.state_dict(), "model.pt")
"""

HANG = """\
import sys
import time

import torch

x = torch.ones(2).cuda()
print("hanging as", sys.argv[1], flush=True)
time.sleep(3600)
"""

BROKEN = """\
import torch

def broken(:
    return torch.zeros(1).cuda()
"""


def task_toml(
    name: str,
    run: str,
    *,
    tpu: str = "parity",
    timeout_s: int = 120,
    tags: tuple[str, ...] = ("cuda-calls",),
    setup: tuple[str, ...] = (),
) -> str:
    """A task.toml; a `manual` tpu expectation gets a reason."""
    reasons = '[expected.reasons]\ntpu = "set so in the harness tests"\n' if tpu == "manual" else ""
    return (
        textwrap.dedent(
            f"""\
        name = "{name}"
        description = "a tiny CUDA program for the harness tests"
        difficulty = "easy"
        tags = {list(tags)!r}
        needs_llm = false
        setup = {list(setup)!r}
        run = ["{run}"]
        timeout_s = {timeout_s}

        [expected]
        tpu = "{tpu}"
        neuron = "parity"
        agnostic = "parity"
        """
        )
        + reasons
        + "\n[parity]\nprint_patterns = ['step \\d+ loss (?P<loss>[-0-9.]+)']\n"
    )


def write_case(suite: Path, name: str, files: dict[str, str], toml: str) -> Path:
    """A case folder `suite/name` with `files` and its task.toml."""
    folder = suite / name
    folder.mkdir(parents=True)
    for path, text in files.items():
        (folder / path).write_text(text)
    (folder / "task.toml").write_text(toml)
    return folder


def train_case(suite: Path, name: str, *, seed: int = 0, tpu: str = "parity") -> Path:
    """A tiny training loop (.cuda(), cudnn flag, synchronize) that rules alone migrate."""
    toml = task_toml(
        name, "python train.py", tpu=tpu, tags=("cuda-calls", "backend-flags", "synchronize")
    )
    return write_case(suite, name, {"train.py": TRAIN.format(seed=seed)}, toml)


def hang_case(suite: Path, name: str, token: str) -> Path:
    """A program that sleeps for an hour; `token` marks its process for the tests."""
    toml = task_toml(name, f"python hang.py {token}", timeout_s=3600)
    return write_case(suite, name, {"hang.py": HANG}, toml)


def broken_case(suite: Path, name: str) -> Path:
    """A program torchport refuses: a file that does not parse."""
    return write_case(suite, name, {"train.py": BROKEN}, task_toml(name, "python train.py"))
