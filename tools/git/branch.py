"""Deliver a migration as a new branch of commits, leaving the user's checkout untouched."""

import logging
from dataclasses import dataclass

from git import Repo

from agent.log import get_logger
from tools.git.commits import CommitPlan, new_run_id, with_run_trailer
from tools.git.identity import TORCHPORT_IDENTITY, Identity
from tools.git.naming import choose_branch
from tools.git.repo import RepoState
from tools.git.runner import git_output
from tools.git.tree import private_index, tree_of

log: logging.Logger = get_logger(__name__)


@dataclass(frozen=True)
class DeliveredCommit:
    """A commit on the delivered branch."""

    sha: str
    message: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Delivery:
    """What deliver_branch made: the branch, its base, its commits (oldest first)."""

    branch: str
    base_sha: str
    commits: tuple[DeliveredCommit, ...]
    run_id: str
    replaced_sha: str | None = None
    """The tip of the local branch that `force` replaced, if one was."""
    skipped: tuple[str, ...] = ()
    """Subjects of planned commits that changed nothing and were left out."""

    @property
    def head_sha(self) -> str:
        """The tip of the delivered branch."""
        return self.commits[-1].sha


def deliver_branch(
    repo: RepoState,
    commits: list[CommitPlan],
    *,
    target: str,
    branch: str | None = None,
    force: bool = False,
    author: Identity | None = None,
    committer: Identity | None = None,
    run_id: str | None = None,
) -> Delivery:
    """Create a branch from `repo.head_sha` with one commit per plan entry, in order.

    The branch is `torchport/<target>` or the first free `-N` suffix, or `branch`; `force`
    replaces an existing branch only if torchport made it (see tools.git.naming). Commits are
    written with a private index (tools.git.tree): the user's current branch, HEAD, index and
    working tree stay byte-identical. Author and committer default to the user's configured
    identity, else `torchport <torchport@users.noreply.github.com>`. Each message gets a
    `Torchport-Run: <run_id>` trailer. A planned commit that changes nothing is skipped (logged);
    ValueError when no commit is left, since an empty branch delivers nothing.
    """
    if not commits:
        raise ValueError("deliver_branch needs at least one CommitPlan")
    git_repo = Repo(repo.root)
    choice = choose_branch(git_repo, repo, target=target, branch=branch, force=force)
    run = run_id or new_run_id()
    delivered, skipped = _write_commits(
        git_repo,
        repo.head_sha,
        commits,
        run,
        author=author or repo.user or TORCHPORT_IDENTITY,
        committer=committer or repo.user or TORCHPORT_IDENTITY,
    )
    if not delivered:
        raise ValueError("every planned commit leaves HEAD's tree as it is: nothing to deliver")
    old = choice.replaces or "0" * len(repo.head_sha)
    ref = f"refs/heads/{choice.name}"
    git_output(git_repo, "update-ref", "-m", f"torchport: run {run}", ref, delivered[-1].sha, old)
    log.info("branch %s: %d commit(s) on %s", choice.name, len(delivered), repo.describe())
    return Delivery(
        branch=choice.name,
        base_sha=repo.head_sha,
        commits=tuple(delivered),
        run_id=run,
        replaced_sha=choice.replaces,
        skipped=tuple(skipped),
    )


def _write_commits(
    git_repo: Repo,
    base: str,
    commits: list[CommitPlan],
    run: str,
    *,
    author: Identity,
    committer: Identity,
) -> tuple[list[DeliveredCommit], list[str]]:
    """The commit chain on `base` (no ref moves), and the subjects of plans that changed nothing."""
    delivered: list[DeliveredCommit] = []
    skipped: list[str] = []
    parent, parent_tree = base, tree_of(git_repo, base)
    with private_index(git_repo, base) as writer:
        for plan in commits:
            writer.stage(plan.changes)
            tree = writer.write_tree()
            if tree == parent_tree:
                log.warning("planned commit %r changes nothing; left out", plan.subject)
                skipped.append(plan.subject)
                continue
            message = with_run_trailer(plan.message, run)
            sha = writer.commit(tree, parent, message, author=author, committer=committer)
            delivered.append(DeliveredCommit(sha, message, tuple(sorted(plan.changes))))
            parent, parent_tree = sha, tree
    return delivered, skipped
