"""The reference runtime runs an unmodified CUDA-first script that uses every construct."""

import json
from pathlib import Path

import pytest

from tests.reference.helpers import run_program


@pytest.fixture(scope="module")
def constructs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    outcome = run_program("constructs.py", tmp_path_factory.mktemp("constructs"))
    assert outcome.process.returncode == 0, outcome.process.stderr
    return outcome.lines()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("available", "True"),
        ("count", "1"),
        ("current", "0"),
        ("name", "NVIDIA_A100-SXM4-80GB"),
        ("sms", "108"),
        ("capability", "8.0"),
        ("bf16", "True"),
        ("total_memory", str(80 << 30)),
        # Published GPU values: manual_seed(10) (pytorch#79496), seed 42 (pytorch#158398).
        ("randn", "-0.1029 1.6810 -0.2708"),
        ("generator", "0.1940 2.1614 -0.1721"),
        ("generator_is_generator", "True"),
        ("rng_state_replay", "True"),
        ("is_cuda", "True"),
        ("device", "cuda:0"),
        ("to_device", "cuda:0"),
        ("to_int", "cuda:0"),
        ("cpu_copy", "cpu"),
        ("transfer_copies", "6.0"),
        ("module_device", "cuda:0"),
        ("grad_device", "cuda:0"),
        ("factory_device", "cuda:0"),
        ("numpy_guard", "True"),
        ("stream_current", "True"),
        ("record_stream", "True"),
        ("elapsed_ms", "True"),
        ("memory_allocated", "True"),
        ("max_memory_allocated", "True"),
        ("memory_stats", "True"),
        ("pinned", "True"),
        ("non_blocking", "cuda:0"),
        ("autocast_dtype", "torch.float16"),
        ("cuda_amp_bf16", "torch.bfloat16"),
        ("softmax_fp32", "torch.float32"),
        ("load_cuda", "cuda:0"),
        ("load_cpu", "cpu"),
        ("accelerator", "cuda"),
        ("version_cuda", "True"),
    ],
)
def test_construct(constructs: dict[str, str], name: str, expected: str) -> None:
    assert constructs.get(name) == expected


def test_other_profile_changes_what_the_program_sees(tmp_path: Path) -> None:
    outcome = run_program("constructs.py", tmp_path, chip="H100")
    assert outcome.process.returncode == 0, outcome.process.stderr
    assert outcome.lines()["sms"] == "132"
    assert outcome.lines()["name"] == "NVIDIA_H100_80GB_HBM3"


def test_probes_and_metrics_are_written(tmp_path: Path) -> None:
    outcome = run_program("constructs.py", tmp_path)
    probes = json.loads((outcome.out / "probes.json").read_text())
    assert probes["runtime"] == "reference"
    assert probes["probes"]["probe:linear_out"]["records"][0]["shape"] == [2, 2]
    assert probes["probes"]["backward"]["records"][0]["shape"] == []
    assert "save:ckpt.pt:weight" in probes["probes"]
    assert probes["probes"]["save:ckpt.pt:step"]["records"][0]["value"] == 3
    metrics = json.loads((outcome.out / "metrics.json").read_text())
    assert metrics["target"] == "reference"
    assert metrics["native_calls"] > 20
    assert metrics["reference"]["unavailable"] == []
