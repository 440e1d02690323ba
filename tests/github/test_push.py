"""push_branch to a real bare `origin`: arrival, fast-forward only, and force on our own branches."""

from pathlib import Path

import pytest

from agent.errors import BadInputError, InfraError
from tests.git.repos import checkout_snapshot, git
from tests.github.conftest import Origin
from tools.git.branch import Delivery, deliver_branch
from tools.git.commits import CommitPlan
from tools.git.repo import open_repo
from tools.github.push import push_branch


def deliver(work: Path, content: bytes = b"migrated\n", *, force: bool = False) -> Delivery:
    plans = [
        CommitPlan("TP001: migrate train.py", {"src/train.py": content}),
        CommitPlan("Add MIGRATION_REPORT.md", {"MIGRATION_REPORT.md": b"# report\n"}),
    ]
    return deliver_branch(open_repo(work), plans, target="tpu", force=force)


def remote_tip(bare: Path, branch: str) -> str:
    return git(bare, "rev-parse", f"refs/heads/{branch}")


def test_branch_and_commits_arrive_on_origin(origin: Origin) -> None:
    delivery = deliver(origin.work)
    before = checkout_snapshot(origin.work)
    assert push_branch(origin.work, delivery.branch) == delivery.head_sha
    assert remote_tip(origin.bare, "torchport/tpu") == delivery.head_sha
    subjects = git(origin.bare, "log", "--format=%s", "main..torchport/tpu").splitlines()
    assert subjects == ["Add MIGRATION_REPORT.md", "TP001: migrate train.py"]
    assert git(origin.bare, "show", "torchport/tpu:src/train.py") == "migrated"
    assert checkout_snapshot(origin.work) == before
    assert remote_tip(origin.bare, "main") == git(origin.work, "rev-parse", "main")


def test_pushing_again_is_a_no_op(origin: Origin) -> None:
    delivery = deliver(origin.work)
    push_branch(origin.work, delivery.branch)
    assert push_branch(origin.work, delivery.branch) == delivery.head_sha


def test_unknown_remote_and_branch_are_bad_input(origin: Origin) -> None:
    delivery = deliver(origin.work)
    with pytest.raises(BadInputError, match="no git remote named 'upstream' \\(remotes: origin\\)"):
        push_branch(origin.work, delivery.branch, remote="upstream")
    with pytest.raises(BadInputError, match="no local branch nope"):
        push_branch(origin.work, "nope")


def test_unreachable_remote_is_infra_with_gits_message(origin: Origin, tmp_path: Path) -> None:
    delivery = deliver(origin.work)
    git(origin.work, "remote", "set-url", "origin", str(tmp_path / "missing.git"))
    with pytest.raises(InfraError, match="does not appear to be a git repository") as caught:
        push_branch(origin.work, delivery.branch)
    assert "credentials" in (caught.value.hint or "")
    assert git(origin.work, "rev-parse", delivery.branch) == delivery.head_sha


def test_diverged_remote_branch_is_not_overwritten_without_force(origin: Origin) -> None:
    first = deliver(origin.work)
    push_branch(origin.work, first.branch)
    git(origin.work, "branch", "-D", first.branch)
    git(origin.work, "update-ref", "-d", f"refs/remotes/origin/{first.branch}")
    second = deliver(origin.work, b"other\n")
    assert second.branch == first.branch
    with pytest.raises(InfraError, match="rejected") as caught:
        push_branch(origin.work, second.branch)
    assert "--force" in (caught.value.hint or "")
    assert remote_tip(origin.bare, first.branch) == first.head_sha


def test_force_replaces_torchports_remote_branch(origin: Origin) -> None:
    first = deliver(origin.work)
    push_branch(origin.work, first.branch)
    second = deliver(origin.work, b"second run\n", force=True)
    assert second.branch == first.branch
    push_branch(origin.work, second.branch, force=True)
    assert remote_tip(origin.bare, first.branch) == second.head_sha


def test_force_from_a_fresh_clone_replaces_the_previous_run(origin: Origin, tmp_path: Path) -> None:
    first = deliver(origin.work)
    push_branch(origin.work, first.branch)
    ci = tmp_path / "ci"
    git(tmp_path, "clone", "--quiet", str(origin.bare), str(ci))
    git(ci, "config", "user.name", "CI")
    git(ci, "config", "user.email", "ci@example.org")
    again = deliver(ci, b"scheduled run\n", force=True)
    assert again.branch == "torchport/tpu"
    push_branch(ci, again.branch, force=True)
    assert remote_tip(origin.bare, "torchport/tpu") == again.head_sha


def test_force_refuses_a_remote_branch_with_someone_elses_commit(
    origin: Origin, tmp_path: Path
) -> None:
    first = deliver(origin.work)
    push_branch(origin.work, first.branch)
    other = tmp_path / "colleague"
    git(tmp_path, "clone", "--quiet", "--branch", first.branch, str(origin.bare), str(other))
    (other / "fix.txt").write_text("hand-made fix\n")
    git(other, "add", "fix.txt")
    git(other, "-c", "user.name=Bob", "-c", "user.email=bob@x.org", "commit", "-qm", "Bob's fix")
    git(other, "push", "--quiet", "origin", first.branch)
    bobs_tip = remote_tip(origin.bare, first.branch)
    second = deliver(origin.work, b"second\n", force=True)
    with pytest.raises(BadInputError, match="was not made by torchport"):
        push_branch(origin.work, second.branch, force=True)
    assert remote_tip(origin.bare, first.branch) == bobs_tip
