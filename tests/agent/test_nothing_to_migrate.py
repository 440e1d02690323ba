"""A tree without lock-in for the target: `agent fix` says so, runs nothing, makes no branch."""

import json
from pathlib import Path

import git

from agent.cli import main
from agent.exit_status import ExitStatus
from tests.agent.test_fix_errors import ENV, make_repo

PORTABLE = """\
import torch

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"
model = torch.nn.Linear(4, 2).to(device)
print(model(torch.ones(3, 4, device=device)).sum().item())
"""


def test_a_portable_repo_has_nothing_to_migrate(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"train.py": PORTABLE})
    runs = tmp_path / "runs"
    branches_before = [head.name for head in git.Repo(repo).heads]
    code = main(
        ["fix", str(repo), "--target", "tpu", "--no-llm", "--run", "python train.py",
         "--run-dir", str(runs)],
        env=ENV,
    )  # fmt: skip
    assert code == ExitStatus.SUCCESS
    folder = next(runs.iterdir())
    report = json.loads((folder / "report.json").read_text())
    assert report["verdict"] == "nothing-to-migrate"
    assert report["exit_status"] == "success"
    assert "agent run --target tpu" in report["stop_reason"]
    assert report["findings"]["total"] == 0
    assert report["changes"] == []
    assert report["parity"] is None
    events = [e["node"] for e in json.loads((folder / "trajectory.json").read_text())["events"]]
    assert {"edit", "reference", "run"}.isdisjoint(events), events
    assert "nothing-to-migrate" in (folder / "MIGRATION_REPORT.md").read_text()
    assert [head.name for head in git.Repo(repo).heads] == branches_before, "no branch is made"


def test_a_cuda_repo_is_not_nothing_to_migrate(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"train.py": "import torch\nx = torch.ones(2).cuda()\n"})
    code = main(
        ["fix", str(repo), "--target", "tpu", "--no-llm", "--plan-only", "--run",
         "python train.py", "--run-dir", str(tmp_path / "runs")],
        env=ENV,
    )  # fmt: skip
    assert code == ExitStatus.SUCCESS
    plan = json.loads(next((tmp_path / "runs").glob("*/plan.json")).read_text())
    assert plan["steps"], "a .cuda() call is planned as a codemod step"
