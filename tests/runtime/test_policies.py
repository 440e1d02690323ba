"""The target's rules as a program meets them: float64, the memory budget, strict mode, the
report of ops not lowered and the metrics file written at exit. Each case runs a small program
under `python -m sandbox.runtime` in a child interpreter."""

from pathlib import Path

import jsonschema
import pytest

from tests.runtime.harness import read_metrics, run_script

METRICS_SCHEMA = {
    "type": "object",
    "required": [
        "schema",
        "target",
        "chip",
        "ops",
        "native_calls",
        "fallback_calls",
        "native_share",
        "ops_not_lowered",
        "memory",
        "transfers",
        "host_syncs",
        "float64_events",
        "warnings",
    ],
    "additionalProperties": False,
    "properties": {
        "schema": {"const": 1},
        "target": {"enum": ["tpu", "neuron"]},
        "chip": {"type": "string"},
        "ops": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["native", "fallback"],
                "additionalProperties": False,
                "properties": {"native": {"type": "integer"}, "fallback": {"type": "integer"}},
            },
        },
        "native_calls": {"type": "integer", "minimum": 0},
        "fallback_calls": {"type": "integer", "minimum": 0},
        "native_share": {"type": "number", "minimum": 0, "maximum": 1},
        "ops_not_lowered": {"type": "array", "items": {"type": "string", "pattern": "^aten::"}},
        "memory": {
            "type": "object",
            "required": ["peak_bytes", "current_bytes", "budget_bytes"],
            "additionalProperties": False,
            "properties": {
                k: {"type": "integer"} for k in ("peak_bytes", "current_bytes", "budget_bytes")
            },
        },
        "transfers": {
            "type": "object",
            "required": [
                "host_to_device",
                "device_to_host",
                "bytes_host_to_device",
                "bytes_device_to_host",
            ],
            "additionalProperties": False,
            "properties": {
                k: {"type": "integer"}
                for k in (
                    "host_to_device",
                    "device_to_host",
                    "bytes_host_to_device",
                    "bytes_device_to_host",
                )
            },
        },
        "host_syncs": {"type": "integer", "minimum": 0},
        "float64_events": {"type": "array", "items": {"type": "string"}},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
}
"""helpers/metrics_schema.md as a JSON schema."""

MODEL_WITH_A_FALLBACK_OP = """
    import torch
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).to("tpu")
    x = torch.randn(16, 4).to("tpu")
    out = model(x)
    ranked = torch.cumprod(out.sigmoid(), dim=0)  # cumprod has no native kernel
    loss = ranked.mean()
    loss.backward()
    print("loss", round(loss.item(), 6))
    print(torch.tpu.metrics_report())
"""


@pytest.mark.slow
def test_metrics_report_and_file_list_the_fallback_ops(tmp_path: Path) -> None:
    done = run_script(MODEL_WITH_A_FALLBACK_OP, tmp_path, TORCHPORT_RT_OUT=str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "Op(s) not lowered: aten::cumprod" in done.stdout
    assert "Counter: aten::cumprod" in done.stdout
    assert "Counter: tpu::addmm" in done.stdout
    metrics = read_metrics(tmp_path / "out")
    jsonschema.validate(metrics, METRICS_SCHEMA)
    assert any(op.startswith("aten::cumprod") for op in metrics["ops_not_lowered"])
    assert metrics["native_calls"] > metrics["fallback_calls"] > 0
    assert metrics["ops"]["aten::addmm"]["native"] >= 2
    assert metrics["host_syncs"] >= 1
    assert metrics["transfers"]["host_to_device"] >= 1
    assert metrics["memory"]["peak_bytes"] > 0
    assert metrics["memory"]["budget_bytes"] == 16 << 30


@pytest.mark.slow
def test_strict_mode_fails_on_the_first_fallback_op(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_script(
        MODEL_WITH_A_FALLBACK_OP, tmp_path, TORCHPORT_RT_STRICT="1", TORCHPORT_RT_OUT=str(out)
    )
    assert done.returncode == 1
    assert "FallbackForbiddenError" in done.stderr
    assert "aten::cumprod" in done.stderr
    assert "strict mode" in done.stderr
    assert "loss" not in done.stdout
    metrics = read_metrics(out)  # written at exit after the uncaught exception too
    assert metrics["ops_not_lowered"] == ["aten::cumprod.out"]
    assert metrics["fallback_calls"] == 1


@pytest.mark.slow
def test_float64_raises_the_profile_error_naming_the_op(tmp_path: Path) -> None:
    done = run_script(
        """
        import torch
        weights = torch.ones(3, dtype=torch.float64)
        weights.to("tpu")
        """,
        tmp_path,
    )
    assert done.returncode == 1
    assert "Float64UnsupportedError" in done.stderr
    assert "torch.float64" in done.stderr
    assert "Use torch.float32" in done.stderr
    assert "aten::" in done.stderr


@pytest.mark.slow
def test_float64_under_policy_warn_runs_and_is_recorded(tmp_path: Path) -> None:
    done = run_script(
        """
        import torch
        x = torch.ones(3, device="tpu", dtype=torch.float64)
        print((x * 2).sum().item())
        """,
        tmp_path,
        TORCHPORT_RT_FLOAT64="warn",
        TORCHPORT_RT_OUT=str(tmp_path / "out"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "6.0"
    metrics = read_metrics(tmp_path / "out")
    assert metrics["float64_events"]
    assert any("float64" in warning for warning in metrics["warnings"])


@pytest.mark.slow
def test_exceeding_the_memory_budget_raises_resource_exhausted(tmp_path: Path) -> None:
    done = run_script(
        """
        import torch
        kept = torch.zeros(256 * 1024, device="tpu")  # 1 MiB of the 1.5 MiB budget
        try:
            torch.ones(256 * 1024, device="tpu")
        except torch.OutOfMemoryError as error:
            print(type(error).__name__, "|", error)
        try:
            torch.empty(64 << 30, dtype=torch.uint8, device="tpu")
        except torch.OutOfMemoryError as error:
            print("huge", "|", error)
        """,
        tmp_path,
        TORCHPORT_RT_MEMORY="1.5MiB",
    )
    assert done.returncode == 0, done.stderr
    first, huge = done.stdout.strip().splitlines()
    assert first.startswith("DeviceOutOfMemoryError | RESOURCE_EXHAUSTED")
    assert "allocate 1.00M" in first
    assert "of 1.50M hbm" in first
    assert "64.00G" in huge


@pytest.mark.slow
def test_out_of_memory_in_backward_keeps_its_type(tmp_path: Path) -> None:
    done = run_script(
        """
        import torch
        x = torch.randn(64, 1024, device="tpu", requires_grad=True)
        y = (x @ x.t()).sum()
        torch.tpu.profile  # the profile is visible to programs
        filler = torch.empty(1, device="tpu")
        budget_left = torch.tpu.mem_get_info()[0]
        block = torch.empty(budget_left // 4 - 1024, device="tpu")
        try:
            y.backward()
        except torch.OutOfMemoryError as error:
            print("backward OOM", "RESOURCE_EXHAUSTED" in str(error))
        """,
        tmp_path,
        TORCHPORT_RT_MEMORY="1MiB",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "backward OOM True"


@pytest.mark.slow
def test_neuron_profile_and_chip_choice(tmp_path: Path) -> None:
    done = run_script(
        """
        import torch
        print(torch.neuron.get_device_properties().total_memory >> 30, torch.neuron.profile.chip.name)
        """,
        tmp_path,
        target="neuron",
        TORCHPORT_CHIP="trn1",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "16 trn1"


@pytest.mark.slow
def test_unknown_chip_or_setting_stops_before_the_program(tmp_path: Path) -> None:
    done = run_script("print('ran')", tmp_path, TORCHPORT_CHIP="v9")
    assert done.returncode == 2
    assert "unknown tpu chip 'v9'" in done.stderr
    assert "ran" not in done.stdout
    done = run_script("print('ran')", tmp_path, TORCHPORT_RT_FALLBACK="sometimes")
    assert done.returncode == 2
    assert "TORCHPORT_RT_FALLBACK" in done.stderr
