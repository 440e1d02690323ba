"""The same program run twice on the reference gives identical probes, bit for bit."""

from pathlib import Path

import pytest

from tests.reference.helpers import run_program


@pytest.mark.slow
@pytest.mark.parametrize("script", ["constructs.py", "amp_loader.py"])
def test_two_runs_give_identical_probe_files(tmp_path: Path, script: str) -> None:
    first = run_program(script, tmp_path / "one")
    second = run_program(script, tmp_path / "two")
    for outcome in (first, second):
        assert outcome.process.returncode == 0, outcome.process.stderr
    assert (first.out / "probes.json").read_bytes() == (second.out / "probes.json").read_bytes()
    assert (first.out / "probes.npz").read_bytes() == (second.out / "probes.npz").read_bytes()
    assert first.process.stdout == second.process.stdout


@pytest.mark.slow
def test_amp_training_with_a_pinned_loader_runs(tmp_path: Path) -> None:
    outcome = run_program("amp_loader.py", tmp_path)
    assert outcome.process.returncode == 0, outcome.process.stderr
    lines = outcome.lines()
    assert float(lines["epoch"].split()[-1]) < 0.69  # it learned (ln 2 is chance)
    assert (outcome.work / "model.pt").is_file()
