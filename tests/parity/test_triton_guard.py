"""The device-usage guard with a Triton kernel in the original: the reference counts a launch as
one CUDA op (not the interpreter's copies and metadata queries), so a migration that replaces the
kernel with one PyTorch op passes the guard, and a program that stayed on the CPU still fails."""

import importlib.util
from pathlib import Path

import pytest

from sandbox.local_sandbox import LocalSandbox
from tests.parity.conftest import needs_tpu
from tools.parity.model import Reference
from tools.parity.reference import collect_reference
from tools.parity.runs import run_candidate
from tools.parity.spec import ParitySpec
from tools.parity.verdict import check_parity

pytestmark = [
    pytest.mark.slow,
    needs_tpu,
    pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed"),
]

ORIGINAL = """
import torch
import triton
import triton.language as tl


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, 2.0 * x + y, mask=mask)


x = torch.linspace(0, 1, 300, device="cuda")
y = torch.ones(300, device="cuda")
out = torch.empty_like(x)
scale_add[(triton.cdiv(300, 64),)](x, y, out, 300, BLOCK=64)
print(f"total {out.sum().item():.4f}")
"""
MIGRATED = """
import torch

device = torch.accelerator.current_accelerator()
x = torch.linspace(0, 1, 300, device=device)
y = torch.ones(300, device=device)
out = torch.add(y, x, alpha=2.0)
print(f"total {out.sum().item():.4f}")
"""
STAYED_ON_CPU = MIGRATED.replace("device=device", "device='cpu'")
SPEC = ParitySpec(print_patterns=[r"total (\S+)"])


def _tree(folder: Path, source: str) -> Path:
    folder.mkdir()
    (folder / "main.py").write_text(source, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, sandbox: LocalSandbox) -> Reference:
    original = _tree(tmp_path_factory.mktemp("triton") / "original", ORIGINAL)
    return collect_reference(original, "python main.py", sandbox=sandbox, spec=SPEC)


def test_a_launch_is_one_cuda_op(reference: Reference) -> None:
    assert reference.exit_codes == [0]
    assert 4 <= reference.device_calls <= 12  # linspace, ones, empty_like, one launch, sum, item


def test_replacing_the_kernel_with_one_op_passes(
    reference: Reference, tmp_path: Path, sandbox: LocalSandbox
) -> None:
    migrated = _tree(tmp_path / "migrated", MIGRATED)
    candidate = run_candidate(migrated, "python main.py", sandbox=sandbox, spec=SPEC, target="tpu")
    report = check_parity(reference, candidate, SPEC, migrated=migrated, target="tpu")
    assert report.failures == [], report.to_dict()
    assert report.verdict == "pass"


def test_a_program_that_stayed_on_the_cpu_still_fails(
    reference: Reference, tmp_path: Path, sandbox: LocalSandbox
) -> None:
    migrated = _tree(tmp_path / "migrated", STAYED_ON_CPU)
    candidate = run_candidate(migrated, "python main.py", sandbox=sandbox, spec=SPEC, target="tpu")
    report = check_parity(reference, candidate, SPEC, migrated=migrated, target="tpu")
    assert [failure.code for failure in report.failures] == ["not_on_device"]
