"""`agent parity` and `agent parity record` in-process: exit codes, tables, JSON, golden files."""

import json
import shutil
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from tests.parity.conftest import FP32_RUN, MIGRATED, ORIGINAL
from tests.reference.helpers import PROGRAMS as CUDA_PROGRAMS

ENV = {"TORCHPORT_SANDBOX__TYPE": "local", "HOME": "/tmp"}


@pytest.mark.slow
def test_parity_passes_then_a_planted_bug_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache, report = tmp_path / "cache", tmp_path / "report.json"
    common = ["--target", "agnostic", "--run", FP32_RUN, "--cache-dir", str(cache)]
    status = main(["parity", str(ORIGINAL), str(MIGRATED), *common, "--json", str(report)], env=ENV)
    assert status == ExitStatus.SUCCESS, capsys.readouterr()
    assert "verdict: pass" in capsys.readouterr().out
    assert json.loads(report.read_text())["verdict"] == "pass"
    buggy = tmp_path / "buggy"
    shutil.copytree(MIGRATED, buggy)
    train = buggy / "train.py"
    train.write_text(train.read_text().replace("lr=3e-3", "lr=1e-3"))
    status = main(["parity", str(ORIGINAL), str(buggy), *common], env=ENV)
    out = capsys.readouterr().out
    assert status == ExitStatus.NO_PARITY
    assert "fail [probe_mismatch]" in out


@pytest.mark.slow
def test_recorded_golden_probes_serve_as_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = tmp_path / "golden"
    status = main(
        ["parity", "record", str(ORIGINAL), "--run", FP32_RUN, "--out", str(golden)], env=ENV
    )
    assert status == ExitStatus.SUCCESS
    assert "golden probes written to" in capsys.readouterr().out
    assert (golden / "reference.json").is_file()
    status = main(
        ["parity", str(ORIGINAL), str(MIGRATED), "--target", "agnostic", "--run", FP32_RUN,
         "--reference", "golden", "--golden", str(golden)],
        env=ENV,
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == ExitStatus.SUCCESS, out
    assert f"golden probes from {golden}" in out


@pytest.mark.slow
def test_a_program_the_cpu_cannot_run_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = tmp_path / "original"
    original.mkdir()
    shutil.copy(CUDA_PROGRAMS / "extension.py", original / "extension.py")
    status = main(
        ["parity", str(original), str(original), "--target", "agnostic", "--run", "python extension.py",
         "--cache-dir", str(tmp_path / "cache")],
        env=ENV,
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == ExitStatus.MANUAL_WORK
    assert "reference unavailable: custom CUDA extension" in err
    assert "at extension.py:7" in err
    assert "agent parity record" in err


def test_target_is_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["parity", str(tmp_path), str(tmp_path), "--run", "python x.py"], env=ENV)
    assert status == ExitStatus.BAD_INPUT
    assert "--target is required" in capsys.readouterr().err


def test_record_needs_an_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["parity", "record", str(tmp_path), "--run", "python x.py"], env=ENV)
    assert status == ExitStatus.BAD_INPUT
    assert "--out" in capsys.readouterr().err
