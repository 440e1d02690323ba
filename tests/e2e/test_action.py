"""The GitHub Action's steps, run locally: inputs map to `agent fix`, outputs come back, and a
pull request is opened on a local fake GitHub over real HTTP."""

import os
import re
import subprocess
import sys
from pathlib import Path

import git
import pytest
import yaml

from agent.action import fix_arguments
from tests.e2e.repos import TINY_TRAIN, make_git_repo
from tools.github.testing.fake_server import FakeGitHubServer

ACTION = Path(__file__).resolve().parents[2] / "action.yml"


def load_action() -> dict:
    return yaml.safe_load(ACTION.read_text())


def step_env(step: dict, inputs: dict[str, str], runner_temp: Path) -> dict[str, str]:
    """The step's `env:` with `${{ inputs.x }}` and `${{ runner.temp }}` substituted as GitHub does."""

    def substitute(value: str) -> str:
        value = value.replace("${{ runner.temp }}", str(runner_temp))
        return re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: inputs[m.group(1)], value)

    return {name: substitute(str(value)) for name, value in step.get("env", {}).items()}


def with_defaults(action: dict, given: dict[str, str]) -> dict[str, str]:
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(given)
    return inputs


def test_action_declares_the_documented_interface() -> None:
    action = load_action()
    assert set(action["inputs"]) == {
        "target",
        "path",
        "run",
        "model",
        "base-url",
        "open-pr",
        "sandbox",
        "python-version",
    }
    assert set(action["outputs"]) == {"verdict", "report-path", "pr-url"}
    steps = action["runs"]["steps"]
    install = next(step for step in steps if "Install" in step.get("name", ""))
    assert "download.pytorch.org/whl/cpu" in install["run"]
    assert any(step.get("uses", "").startswith("actions/upload-artifact") for step in steps)


def test_inputs_map_to_cli_flags(tmp_path: Path) -> None:
    action = load_action()
    fix_step = next(step for step in action["runs"]["steps"] if step.get("id") == "fix")
    inputs = with_defaults(
        action,
        {
            "target": "neuron",
            "run": "python a.py\npython b.py --x 1\n",
            "model": "m1",
            "base-url": "http://h/v1",
            "sandbox": "local",
        },
    )
    env = step_env(fix_step, inputs, tmp_path)
    from agent.action import action_inputs

    argv = fix_arguments(action_inputs(env), tmp_path / "runs")
    assert argv[:4] == ["fix", ".", "--target", "neuron"]
    assert argv.count("--run") == 2
    assert "python b.py --x 1" in argv
    assert argv[argv.index("--model") + 1] == "m1"
    assert argv[argv.index("--base-url") + 1] == "http://h/v1"
    assert "--open-pr" in argv
    assert argv[argv.index("--sandbox") + 1] == "local"
    rules_only = fix_arguments(
        action_inputs(
            step_env(
                fix_step, with_defaults(action, {"target": "tpu", "open-pr": "false"}), tmp_path
            )
        ),
        tmp_path,
    )
    assert "--no-llm" in rules_only
    assert "--open-pr" not in rules_only


@pytest.mark.slow
def test_action_step_migrates_and_opens_a_pull_request(tmp_path: Path) -> None:
    repo = make_git_repo(tmp_path / "repo", {"train.py": TINY_TRAIN})
    action = load_action()
    fix_step = next(step for step in action["runs"]["steps"] if step.get("id") == "fix")
    inputs = with_defaults(
        action, {"target": "tpu", "run": "python train.py", "sandbox": "local", "open-pr": "true"}
    )
    outputs_file = tmp_path / "github_output"
    with FakeGitHubServer() as server:
        server.github.add_repo("octo/demo", tmp_path / "origin.git")
        server.github.add_token("test-token")
        env = {
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", str(tmp_path)),
            "GITHUB_OUTPUT": str(outputs_file),
            "GITHUB_API_URL": server.api_url,
            "GITHUB_TOKEN": "test-token",
            "GITHUB_REPOSITORY": "octo/demo",
            "RUNNER_TEMP": str(tmp_path / "runner"),
            **step_env(fix_step, inputs, tmp_path / "runner"),
        }
        done = subprocess.run(
            ["bash", "-c", fix_step["run"]],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        pulls = server.github.pulls("octo/demo")
    outputs = dict(line.split("=", 1) for line in outputs_file.read_text().splitlines())
    assert done.returncode == 0, done.stderr[-3000:]
    assert outputs["verdict"] == "parity"
    assert outputs["report-path"].endswith("MIGRATION_REPORT.md")
    assert Path(outputs["report-path"]).is_file()
    assert len(pulls) == 1
    assert outputs["pr-url"].endswith(f"/pull/{pulls[0].number}")
    assert pulls[0].head == "torchport/tpu"
    assert "torchport/tpu" in git.Repo(tmp_path / "origin.git").git.branch("--list")
