"""`agent fix --dry-run`: the codemods' diff and the commit plan, with nothing written.

The codemods run family by family on a temporary copy of HEAD, exactly as the agent's first edit
does, so the commit plan shown is the one a real run would start from.
"""

import tempfile
from pathlib import Path, PurePosixPath

from agent.delivery import commit_plans
from agent.editing import apply_codemods
from agent.planning import make_plan
from agent.settings import Settings, Target
from agent.workspace import Workspace, export_commit
from tools.git.dry_run import delivery_diff, describe_delivery_plan
from tools.git.repo import open_repo
from tools.rules import with_partners
from tools.scanner import scan_path

REPORT_NOTE = "(MIGRATION_REPORT.md is written by the run)"


def dry_run(repo_path: Path, target: Target, settings: Settings, *, branch: str | None) -> str:
    """The commit plan and the unified diff the rules alone would deliver."""
    repo = open_repo(repo_path, require_clean=False)
    prefix = PurePosixPath(repo.path_in_repo)
    treeish = repo.head_sha if str(prefix) == "." else f"{repo.head_sha}:{prefix}"
    with tempfile.TemporaryDirectory(prefix="torchport-dry-run-") as scratch:
        original = Path(scratch) / "original"
        export_commit(repo.root, treeish, original)
        workspace = Workspace.create(original, Path(scratch) / "workspace")
        findings = [
            f.to_json()
            for f in scan_path(original, target=target, ignore=settings.scan.ignore).findings
        ]
        steps, manual = make_plan(findings, has_model=False)
        changes = []
        for step in steps:
            change = apply_codemods(
                workspace,
                target=target,
                rules=sorted(with_partners(frozenset(step["rules"]))),
                family=step["family"],
                iteration=1,
                reason=f"Plan step {step['id']}: {step['summary']}.",
                ignore=settings.scan.ignore,
            )
            if change:
                changes.append(change)
        plans = commit_plans(workspace, changes, prefix, REPORT_NOTE)
        plan_text = describe_delivery_plan(repo, plans, str(target), branch)
        diff = delivery_diff(repo, plans[:-1])
    left = f"\n{len(manual)} finding(s) need the agent's model or a person.\n" if manual else "\n"
    return f"{plan_text}\n{left}\n{diff}"
