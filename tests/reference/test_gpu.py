"""On a machine with an NVIDIA GPU: the CPU reference against the real CUDA run of the same
unmodified programs. The differences are printed (run with -s to see them) and held to the
bounds expected from cuBLAS/cuDNN and fast-math differences (reference-runtime.md §6.3)."""

from pathlib import Path

import pytest

from sandbox.local_sandbox import LocalSandbox
from tests.parity.conftest import FP32_RUN, ORIGINAL
from tests.reference.helpers import run_program
from tools.parity.compare import Tolerance, compare_values, structure_problem
from tools.parity.probeset import ProbeSet
from tools.parity.reference import collect_reference
from tools.parity.spec import load_spec

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


def _both(
    script: str, tmp: Path, *args: str
) -> tuple[ProbeSet, ProbeSet, dict[str, str], dict[str, str]]:
    gpu = run_program(script, tmp / "gpu", *args, target="cpu")
    cpu = run_program(script, tmp / "cpu", *args, target="reference")
    for outcome in (gpu, cpu):
        assert outcome.process.returncode == 0, outcome.process.stderr[-2000:]
    return (ProbeSet.from_folder(gpu.out), ProbeSet.from_folder(cpu.out), gpu.lines(), cpu.lines())


def _differences(
    gpu: ProbeSet, cpu: ProbeSet, rtol: float, atol: float
) -> dict[str, tuple[str, float]]:
    rows = {}
    for name, expected in gpu.probes.items():
        found = cpu.probes.get(name)
        problem = structure_problem(name, expected, found, {})
        if problem is not None or found is None:
            rows[name] = ("structure", float("inf"))
            continue
        row = compare_values(name, expected, found, Tolerance(rtol, atol))
        rows[name] = (row.verdict, row.max_rel or 0.0)
        print(f"{name:40s} {row.verdict:8s} max abs {row.max_abs:.3g} max rel {row.max_rel:.3g}")
    return rows


def test_device_queries_and_philox_values_match_the_gpu(tmp_path: Path) -> None:
    _, _, gpu, cpu = _both("constructs.py", tmp_path)
    for name in ("available", "randn", "generator", "rng_state_replay", "is_cuda", "device",
                 "autocast_dtype", "cuda_amp_bf16", "softmax_fp32", "load_cuda"):  # fmt: skip
        assert cpu[name] == gpu[name], name


def test_fp32_training_matches_the_gpu_closely(tmp_path: Path) -> None:
    gpu, cpu, _, _ = _both("amp_loader.py", tmp_path)
    rows = _differences(gpu, cpu, rtol=3e-2, atol=1e-3)
    assert rows[r"backward"][0] != "structure"
    failing = [name for name, (verdict, _) in rows.items() if verdict == "fail"]
    assert failing == [], failing


def test_gpu_reference_through_the_sandbox(tmp_path: Path) -> None:
    spec = load_spec(ORIGINAL).model_copy(update={"reference": "cuda"})
    reference = collect_reference(ORIGINAL, [FP32_RUN], sandbox=LocalSandbox("unshare"), spec=spec)
    cpu = collect_reference(
        ORIGINAL, [FP32_RUN], sandbox=LocalSandbox("unshare"), spec=load_spec(ORIGINAL)
    )
    assert reference.source == "cuda"
    assert reference.exit_codes == [0]
    rows = _differences(reference.base, cpu.base, rtol=1e-3, atol=1e-5)
    losses = rows["backward"]
    assert losses[0] == "pass", losses
