"""Rules only: the bundled CUDA training script (.cuda(), torch.cuda.amp autocast + GradScaler,
cuDNN/TF32 flags, CUDA events/synchronize, max_memory_allocated) reaches parity on `tpu`."""

import json
from pathlib import Path

import git
import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from agent.settings import Target
from tests.e2e.repos import SUITE, make_git_repo, tree_snapshot
from tools.scanner import scan_path

EXAMPLE = SUITE / "amp_classifier"
EXPECTED_RULE_FAMILIES = {"amp", "backend-flags", "device", "memory", "sync", "rng"}


def migrate(tmp_path: Path, env: dict[str, str], sandbox: str) -> tuple[int, Path, dict]:
    repo = make_git_repo(tmp_path / "repo", copy_of=EXAMPLE)
    before = tree_snapshot(repo)
    head = git.Repo(repo).head.commit.hexsha
    code = main(
        ["fix", str(repo), "--target", "tpu", "--no-llm", "--sandbox", sandbox,
         "--run", "python train.py --steps 20", "--run-dir", str(tmp_path / "runs")],
        env=env,
    )  # fmt: skip
    report_path = next((tmp_path / "runs").glob("*/report.json"))
    assert tree_snapshot(repo) == before, "the user's working tree must not change"
    assert git.Repo(repo).head.commit.hexsha == head
    assert git.Repo(repo).active_branch.name == "main"
    return code, report_path.parent, json.loads(report_path.read_text())


def check_report(code: int, folder: Path, report: dict) -> None:
    assert code == ExitStatus.SUCCESS, report["stop_reason"]
    assert report["verdict"] == "parity"
    assert {change["family"] for change in report["changes"]} == EXPECTED_RULE_FAMILIES
    assert all(change["source"] == "rule" and change["rules"] for change in report["changes"])
    assert report["parity"]["rows"], "probes were compared"
    assert report["statistics"]["llm_calls"] == 0
    markdown = (folder / "MIGRATION_REPORT.md").read_text()
    for change in report["changes"]:
        assert ", ".join(change["rules"]) in markdown
    left = scan_path(folder / "workspace", target=Target.TPU).findings
    assert left == [], f"lock-in left after the migration: {left}"
    events = [
        event["node"] for event in json.loads((folder / "trajectory.json").read_text())["events"]
    ]
    assert events[:4] == ["start", "scan", "plan", "edit"]
    assert "deliver" in events
    assert report["delivery"]["branch"] == "torchport/tpu"


@pytest.mark.slow
def test_rules_only_reaches_parity_in_the_local_sandbox(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    code, folder, report = migrate(tmp_path, cli_env, "local")
    check_report(code, folder, report)
    branch = git.Repo(tmp_path / "repo").commit("torchport/tpu")
    assert branch.message.startswith("Add the torchport migration report")


@pytest.mark.slow
@pytest.mark.docker
def test_rules_only_reaches_parity_in_docker(tmp_path: Path, cli_env: dict[str, str]) -> None:
    from sandbox.factory import docker_unavailable_reason

    reason = docker_unavailable_reason()
    if reason:
        pytest.fail(f"Docker engine is up but the sandbox image is not usable: {reason}")
    code, folder, report = migrate(tmp_path, cli_env, "docker")
    check_report(code, folder, report)
    results = list(folder.glob("logs/*-target/cmd0/result.json"))
    assert json.loads(results[0].read_text())["backend"].startswith("docker")
