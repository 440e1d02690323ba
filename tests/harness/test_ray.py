"""`--executor ray`: the cases run as Ray tasks on a local Ray instance, with the results of the
local executor."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.exit_status import ExitStatus
from evals.harness import load_results
from tests.harness.conftest import Scenario, eval_argv

SAME_FIELDS = (
    "expected", "verdict", "outcome", "parity", "iterations", "findings_found", "fixed_by_rules",
    "fixed_by_llm", "findings_left", "lines_by_rules", "lines_by_llm", "ops_not_lowered",
)  # fmt: skip


@pytest.mark.slow
def test_ray_executor_gives_the_results_of_the_local_one(
    tmp_path: Path, eval_env: dict[str, str], scenario: Scenario
) -> None:
    pytest.importorskip("ray", reason="ray is not installed: pip install 'torchport[ray]'")
    run_dir = tmp_path / "run"
    argv = eval_argv(scenario.suite, run_dir, "--cases", "a_train", "--executor", "ray")
    argv[argv.index("tpu")] = "tpu,neuron"
    done = subprocess.run(argv, env=eval_env, capture_output=True, text=True, timeout=900)
    assert done.returncode == ExitStatus.SUCCESS, done.stdout + done.stderr
    on_ray = {result.target: result for result in load_results(run_dir)}
    local = next(r for r in load_results(scenario.run_dir) if r.case == "a_train")
    for field in SAME_FIELDS:
        assert getattr(on_ray["tpu"], field) == getattr(local, field), field
    assert on_ray["neuron"].outcome == "pass"
    references = list((run_dir / "cases" / "a_train" / "cache" / "reference").iterdir())
    assert len(references) == 1, "the two targets share one reference"
    assert json.loads((run_dir / "eval.json").read_text())["run"]["executor"] == "ray"


def test_ray_executor_without_ray_says_what_to_install(
    tmp_path: Path, eval_env: dict[str, str]
) -> None:
    from tests.harness.tiny_suite import train_case

    train_case(tmp_path / "suite", "a_train")
    argv = eval_argv(tmp_path / "suite", tmp_path / "run", "--executor", "ray")[3:]
    code = (
        "import sys; sys.modules['ray'] = None; from agent.cli import main; "
        f"sys.exit(main({argv!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=eval_env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == ExitStatus.BAD_INPUT
    message = " ".join(done.stderr.split())
    assert "--executor ray needs the ray package, which is not installed" in message
    assert "pip install 'torchport[ray]'" in message
