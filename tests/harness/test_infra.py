"""Infrastructure failures are told apart from migration failures, and run again on resume."""

import socket
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from evals.harness import load_results
from tests.harness.tiny_suite import TRAIN, task_toml, write_case

NEEDS_MODEL = TRAIN.format(seed=0) + (
    "free, total = torch.cuda.mem_get_info()  # no codemod: a judgement step for the model\n"
    "print('free', free > 0)\n"
)


def closed_port() -> int:
    """A local TCP port nothing listens on (an LLM endpoint that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_an_unreachable_llm_endpoint_is_infrastructure_and_is_run_again(
    tmp_path: Path, eval_env: dict[str, str]
) -> None:
    suite = tmp_path / "suite"
    toml = task_toml("needs_model", "python train.py")
    write_case(suite, "needs_model", {"train.py": NEEDS_MODEL}, toml)
    env = {**eval_env, "TORCHPORT_LLM__RETRY_BACKOFF_S": "0.01"}
    argv = ["eval", "--suite", str(suite), "--targets", "tpu", "--model", "test-model",
            "--base-url", f"http://127.0.0.1:{closed_port()}/v1", "--run-dir", str(tmp_path / "run")]  # fmt: skip
    assert main(argv, env=env) == ExitStatus.INFRA_FAILURE
    (first,) = load_results(tmp_path / "run")
    assert (first.outcome, first.verdict, first.exit_code) == ("infra", "error", 6)
    assert "LLM endpoint failed" in first.detail
    assert main(argv, env=env) == ExitStatus.INFRA_FAILURE
    (second,) = load_results(tmp_path / "run")
    assert second.outcome == "infra"
    assert second.run_id != first.run_id, "an infrastructure failure is not kept on resume"
