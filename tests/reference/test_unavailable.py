"""What the CPU cannot run is reported precisely: what, and at which file:line."""

import importlib.util
import json
from pathlib import Path

import pytest

from tests.reference.helpers import run_program


def test_custom_cuda_extension_is_reported_at_its_line(tmp_path: Path) -> None:
    outcome = run_program("extension.py", tmp_path)
    assert outcome.process.returncode != 0
    assert (
        "reference unavailable: custom CUDA extension (cpp_extension.load_inline with CUDA "
        "sources) at extension.py:7" in outcome.process.stderr
    )
    metrics = json.loads((outcome.out / "metrics.json").read_text())
    entry = metrics["reference"]["unavailable"][0]
    assert (entry["file"], entry["line"]) == ("extension.py", 7)


@pytest.mark.skipif(
    importlib.util.find_spec("triton") is not None, reason="triton is installed here"
)
def test_triton_without_the_package_is_reported_at_the_import(tmp_path: Path) -> None:
    outcome = run_program("triton_add.py", tmp_path)
    assert outcome.process.returncode != 0
    metrics = json.loads((outcome.out / "metrics.json").read_text())
    entry = metrics["reference"]["unavailable"][0]
    assert (entry["file"], entry["line"]) == ("triton_add.py", 4)
    assert "Triton" in entry["what"]


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed")
def test_triton_kernels_run_in_the_interpreter(tmp_path: Path) -> None:
    outcome = run_program("triton_add.py", tmp_path)
    assert outcome.process.returncode == 0, outcome.process.stderr
    assert outcome.lines()["sum"] == "5050.0"


def test_library_fallback_imports_are_not_reported(tmp_path: Path) -> None:
    outcome = run_program("amp_loader.py", tmp_path)
    assert outcome.process.returncode == 0, outcome.process.stderr
    metrics = json.loads((outcome.out / "metrics.json").read_text())
    assert metrics["reference"]["unavailable"] == []


def test_cuda_graph_capture_is_reported_and_compile_runs_eagerly(tmp_path: Path) -> None:
    outcome = run_program("graphs.py", tmp_path)
    assert outcome.process.returncode != 0
    assert outcome.lines()["compiled"] == "cuda:0"
    assert "reference unavailable: CUDA graph capture" in outcome.process.stderr
    assert "at graphs.py:8" in outcome.process.stderr
