"""External task sets: a manifest entry is cloned from a file:// "remote" at its pinned commit,
set up, and run like a suite case; clone, checkout and setup failures are infrastructure."""

import json
from pathlib import Path

import git
import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from evals.harness import load_results
from tests.harness.tiny_suite import TRAIN

MAKE_DATA = """\
import torch

torch.manual_seed(3)
torch.save({"x": torch.randn(32, 8), "y": torch.randn(32, 2)}, "data.pt")
"""
TRAIN_ON_DATA = TRAIN.format(seed=0).replace(
    "x = torch.randn(32, 8).cuda()\ny = torch.randn(32, 2).cuda()",
    'data = torch.load("data.pt")\nx = data["x"].cuda()\ny = data["y"].cuda()',
)
ENTRY = """
[[task]]
name = "{name}"
repo = "{repo}"
commit = "{commit}"
subdir = "project"
description = "a tiny training loop on data its setup makes"
setup = ["{setup}"]
run = ["python train.py"]
timeout_s = 120
difficulty = "easy"
tags = ["cuda-calls", "backend-flags"]
needs_llm = false
[task.expected]
tpu = "parity"
neuron = "parity"
agnostic = "parity"
[task.parity]
print_patterns = ['step \\d+ loss (?P<loss>[-0-9.]+)']
"""


def remote_repo(tmp_path: Path) -> tuple[str, str]:
    """A bare repo (the "remote") whose first commit is the task and whose second breaks it."""
    work = git.Repo.init(tmp_path / "upstream", initial_branch="main")
    with work.config_writer() as config:
        config.set_value("user", "name", "Upstream")
        config.set_value("user", "email", "upstream@example.com")
    project = tmp_path / "upstream" / "project"
    project.mkdir()
    (project / "make_data.py").write_text(MAKE_DATA)
    (project / "train.py").write_text(TRAIN_ON_DATA)
    (project / "fail.py").write_text("raise SystemExit('setup failed on purpose')\n")
    (tmp_path / "upstream" / "README.md").write_text("upstream\n")
    work.git.add("-A")
    pinned = work.index.commit("the task").hexsha
    (project / "train.py").write_text("raise SystemExit('a later commit')\n")
    work.git.add("-A")
    work.index.commit("later")
    bare = tmp_path / "remote.git"
    git.Repo.clone_from(str(tmp_path / "upstream"), bare, bare=True)
    return bare.as_uri(), pinned


def manifest(tmp_path: Path, *entries: dict[str, str]) -> Path:
    path = tmp_path / "tasks.toml"
    text = ""
    for entry in entries:
        block = ENTRY
        for key, value in entry.items():
            block = block.replace("{" + key + "}", value)
        text += block
    path.write_text(text)
    return path


def run_eval(tmp_path: Path, env: dict[str, str], tasks: Path) -> tuple[int, Path]:
    run_dir = tmp_path / "run"
    argv = ["eval", "--manifest", str(tasks), "--targets", "tpu", "--no-llm",
            "--run-dir", str(run_dir)]  # fmt: skip
    return main(argv, env=env), run_dir


def test_clone_checkout_and_setup_failures_are_infrastructure(
    tmp_path: Path, eval_env: dict[str, str]
) -> None:
    url, pinned = remote_repo(tmp_path)
    missing = (tmp_path / "no-such-remote.git").as_uri()
    tasks = manifest(
        tmp_path,
        {"name": "unreachable", "repo": missing, "commit": pinned, "setup": "python make_data.py"},
        {"name": "bad_commit", "repo": url, "commit": "0" * 40, "setup": "python make_data.py"},
        {"name": "bad_setup", "repo": url, "commit": pinned, "setup": "python fail.py"},
    )
    code, run_dir = run_eval(tmp_path, eval_env, tasks)
    assert code == ExitStatus.INFRA_FAILURE
    results = {r.case: r for r in load_results(run_dir)}
    assert {r.outcome for r in results.values()} == {"infra"}
    assert results["unreachable"].detail.startswith(f"git clone {missing} failed: ")
    assert f"commit {'0' * 40} cannot be checked out" in results["bad_commit"].detail
    assert "setup command 'python fail.py' failed (exit status 1)" in results["bad_setup"].detail
    setup_log = run_dir / "cases" / "bad_setup" / "setup.log"
    assert "setup failed on purpose" in setup_log.read_text()
    report = json.loads((run_dir / "eval.json").read_text())
    assert report["summary"]["pass_rate"] is None
    assert report["summary"]["infra_failures"] == [
        "bad_commit/tpu", "bad_setup/tpu", "unreachable/tpu",
    ]  # fmt: skip


@pytest.mark.slow
def test_an_external_task_runs_at_its_pinned_commit(
    tmp_path: Path, eval_env: dict[str, str]
) -> None:
    url, pinned = remote_repo(tmp_path)
    tasks = manifest(
        tmp_path,
        {"name": "ext_train", "repo": url, "commit": pinned, "setup": "python make_data.py"},
    )
    code, run_dir = run_eval(tmp_path, eval_env, tasks)
    (result,) = load_results(run_dir)
    assert (result.case, result.origin, result.outcome) == ("ext_train", "external", "pass"), (
        result.detail
    )
    assert code == ExitStatus.SUCCESS
    source = run_dir / "cases" / "ext_train" / "source"
    assert git.Repo(source).head.commit.hexsha == pinned
    assert (source / "project" / "data.pt").is_file(), "setup ran in the task's subdir"
    repo = run_dir / "cases" / "ext_train" / "tpu" / "repo"
    assert (repo / "README.md").is_file(), "the whole checkout is the repo agent fix sees"
    request = json.loads(
        next((run_dir / "cases/ext_train/tpu/runs").glob("*/request.json")).read_text()
    )
    assert request["repo_root"] == str(repo / "project")
