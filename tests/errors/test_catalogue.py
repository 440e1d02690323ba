"""The error catalogue classifies real failures and points at the user's frame."""

import subprocess
import sys
from pathlib import Path

import pytest

from tools.errors import ErrorKind, code_around, diagnose_run, match_output, user_frames

REAL_FAILURES = {
    ErrorKind.CUDA_NOT_COMPILED: "import torch\n\ndef f():\n    return torch.zeros(2).cuda()\n\nf()\n",
    ErrorKind.NCCL_WITHOUT_GPU: (
        "import os\nimport torch.distributed as dist\n"
        "os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT='29555')\n"
        "dist.init_process_group('nccl', rank=0, world_size=1)\n"
    ),
    ErrorKind.CUDA_DESERIALIZE: (
        "import io\nimport torch\nbuf = io.BytesIO()\ntorch.save(torch.zeros(2), buf)\n"
        "buf.seek(0)\ntorch.load(buf, map_location='cuda:0')\n"
    ),
}


@pytest.mark.parametrize(("kind", "script"), list(REAL_FAILURES.items()))
def test_real_pytorch_failures_are_classified(kind: ErrorKind, script: str, tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(script)
    done = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    diagnosis = diagnose_run(
        exit_code=done.returncode, stdout=done.stdout, stderr=done.stderr, workspace=tmp_path
    )
    assert diagnosis.kind is kind
    assert diagnosis.location is not None
    assert diagnosis.location.path == "train.py"
    assert diagnosis.categories


def test_innermost_user_frame_is_the_location(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text("def f():\n    raise ValueError('x')\n")
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/sandbox/work/train.py", line 3, in <module>\n'
        '  File "/sandbox/work/pkg/model.py", line 2, in f\n'
        '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1, in x\n'
        "ValueError: x\n"
    )
    (tmp_path / "train.py").write_text("from pkg.model import f\n\nf()\n")
    frames = user_frames(stderr, tmp_path)
    assert [frame.where() for frame in frames] == ["train.py:3", "pkg/model.py:2"]
    assert ">    2 |     raise ValueError('x')" in code_around(tmp_path, frames[-1])


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("RuntimeError: 0 active drivers ([]). There should only be one.", ErrorKind.TRITON),
        ("ModuleNotFoundError: No module named 'flash_attn'", ErrorKind.CUDA_ONLY_LIBRARY),
        (
            "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
            ErrorKind.NCCL_WITHOUT_GPU,
        ),
        (
            "ValueError: Default backend not registered for device : tpu",
            ErrorKind.BACKEND_NOT_REGISTERED,
        ),
        (
            "RuntimeError: Found no NVIDIA driver on your system. Please check",
            ErrorKind.NO_NVIDIA_DRIVER,
        ),
        (
            "Expected all tensors to be on the same device, but found at least two devices, tpu:0 and cpu!",
            ErrorKind.MIXED_DEVICE,
        ),
        (
            "UserWarning: In tpu autocast, but the target dtype is not supported. Disabling autocast.",
            ErrorKind.AUTOCAST_DTYPE,
        ),
        (
            "OSError: CUDA_HOME environment variable is not set. Please set it",
            ErrorKind.CUDA_EXTENSION,
        ),
        (
            "TypeError: tpu: dtype torch.float64 is not supported on this device (aten::mul)",
            ErrorKind.FLOAT64_ON_DEVICE,
        ),
        (
            "torch.OutOfMemoryError: RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm.",
            ErrorKind.DEVICE_OOM,
        ),
    ],
)
def test_documented_texts_map_to_kinds(text: str, kind: ErrorKind) -> None:
    matched = match_output(f"Traceback (most recent call last):\n{text}\n")
    assert matched is not None
    assert matched[0].kind is kind


def test_timeout_and_oom_flags_win_over_output(tmp_path: Path) -> None:
    timed_out = diagnose_run(exit_code=-9, stdout="", stderr="", workspace=tmp_path, timed_out=True)
    assert timed_out.kind is ErrorKind.TIMEOUT
    killed = diagnose_run(exit_code=137, stdout="", stderr="", workspace=tmp_path, oom_killed=True)
    assert killed.kind is ErrorKind.SANDBOX_OOM


def test_signature_ignores_numbers_so_repeats_are_detected(tmp_path: Path) -> None:
    first = diagnose_run(
        exit_code=1, stdout="", stderr="ValueError: bad size 12", workspace=tmp_path
    )
    second = diagnose_run(
        exit_code=1, stdout="", stderr="ValueError: bad size 13", workspace=tmp_path
    )
    assert first.kind is ErrorKind.UNKNOWN
    assert first.signature() == second.signature()


def test_diagnosis_round_trips_through_dict(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("x = 1\n")
    diagnosis = diagnose_run(
        exit_code=1,
        stdout="",
        stderr='Traceback (most recent call last):\n  File "/w/train.py", line 1, in <module>\n'
        "AssertionError: Torch not compiled with CUDA enabled\n",
        workspace=tmp_path,
    )
    assert diagnosis.from_dict(diagnosis.to_dict()) == diagnosis
