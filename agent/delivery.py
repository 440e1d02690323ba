"""Delivering the workspace's commits to the user's repository as a branch (and a PR)."""

import dataclasses
from pathlib import PurePosixPath
from typing import Any

from agent.context import FixContext
from agent.workspace import Workspace
from tools.git.branch import deliver_branch
from tools.git.commits import CommitPlan
from tools.git.repo import open_repo
from tools.github.pull_request import github_environment, open_or_update_pr, pr_title

REPORT_FILE = "MIGRATION_REPORT.md"


def commit_plans(
    workspace: Workspace, changes: list[dict[str, Any]], prefix: PurePosixPath, report_md: str
) -> list[CommitPlan]:
    """One commit per change (its files at that commit), then the report."""
    plans = []
    for change in changes:
        files: dict[str, bytes | None] = {
            str(prefix / name): workspace.file_at(change["commit"], name)
            for name in change["files"]
        }
        plans.append(CommitPlan(workspace.message(change["commit"]).strip(), files))
    report_path = str(prefix / REPORT_FILE)
    plans.append(
        CommitPlan(
            "Add the torchport migration report\n\nVerdict, parity table, changes and manual work.",
            {report_path: report_md.encode()},
        )
    )
    return plans


def deliver(
    ctx: FixContext, state_changes: list[dict[str, Any]], base_commit: str
) -> dict[str, Any]:
    """Create the branch (and open or update the pull request when asked); returns what was done."""
    request = ctx.request
    repo = open_repo(request.repo_root, require_clean=False)
    repo = dataclasses.replace(repo, head_sha=base_commit)
    workspace = Workspace(ctx.folder.workspace)
    report_md = ctx.folder.report_md.read_text(encoding="utf-8")
    plans = commit_plans(workspace, state_changes, PurePosixPath(repo.path_in_repo), report_md)
    delivery = deliver_branch(
        repo,
        plans,
        target=str(request.target),
        branch=request.branch,
        force=request.force,
        run_id=ctx.folder.run_id,
    )
    result: dict[str, Any] = {
        "branch": delivery.branch,
        "base": delivery.base_sha,
        "commits": [{"sha": c.sha, "message": c.message.splitlines()[0]} for c in delivery.commits],
    }
    if request.open_pr:
        github = github_environment(ctx.env)
        pull = open_or_update_pr(
            repo.root,
            delivery.branch,
            base=request.base_branch,
            title=pr_title(str(request.target)),
            body=report_md,
            labels=request.labels or ["torchport"],
            remote=request.remote,
            token=github.token,
            api_url=github.api_url,
            repo_slug=request.repo_slug or github.repo_slug,
            force=request.force,
        )
        result["pull_request"] = {"url": pull.url, "number": pull.number, "created": pull.created}
    return result
