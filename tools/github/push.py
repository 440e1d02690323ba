"""Push a delivered branch to a remote with gitpython; with force, replace only torchport's."""

import logging
from pathlib import Path

from git import GitCommandError, Repo

from agent.errors import BadInputError, InfraError
from agent.log import get_logger
from tools.git.commits import RUN_TRAILER
from tools.git.naming import made_by_torchport
from tools.git.runner import QUIET_ENV, git_message, git_succeeds

log: logging.Logger = get_logger(__name__)

PUSH_HINT = (
    "check the remote URL and your push credentials (in GitHub Actions: "
    "`permissions: contents: write`); the branch is still in your local repository"
)

_DIVERGED_HINT = (
    "the remote already has {branch} with commits this one lacks: rerun with --force to replace "
    "it (only if torchport made it), or deliver to another --branch NAME"
)


def push_branch(
    repo_root: Path, branch: str, *, remote: str = "origin", force: bool = False
) -> str:
    """Push local `branch` to the same name on `remote`; the commit id pushed.

    Without `force`, a branch that already exists there is only fast-forwarded. With `force`, it is
    replaced only if its tip was made by torchport (`Torchport-Run` trailer), and atomically
    (`--force-with-lease` on the value just read), so nobody's later push is lost.
    Errors: BadInputError for an unknown remote or branch, InfraError with git's message otherwise.
    """
    repo = Repo(repo_root)
    _require_remote(repo, remote)
    local_sha = _local_tip(repo, branch)
    remote_sha = _remote_tip(repo, remote, branch)
    if remote_sha == local_sha:
        log.info("%s already has %s at %s", remote, branch, local_sha[:7])
        return local_sha
    refspec = f"refs/heads/{branch}:refs/heads/{branch}"
    options = ["--porcelain"]
    if force:
        if remote_sha is not None:
            _require_torchport_tip(repo, remote, branch, remote_sha)
        options.append(f"--force-with-lease=refs/heads/{branch}:{remote_sha or ''}")
    hint = _DIVERGED_HINT.format(branch=branch) if remote_sha and not force else PUSH_HINT
    _git_network(repo, remote, "push", *options, remote, refspec, hint=hint)
    log.info("pushed %s (%s) to %s", branch, local_sha[:7], remote)
    return local_sha


def remote_urls(repo_root: Path, remote: str) -> list[str]:
    """The URL of `remote` as git uses it (`insteadOf` applied) and as configured, without
    repeats; BadInputError if there is no such remote."""
    repo = Repo(repo_root)
    _require_remote(repo, remote)
    used = str(repo.git.execute(["git", "remote", "get-url", remote], env=QUIET_ENV))
    configured = str(repo.remote(remote).url)
    return [used] if used == configured else [used, configured]


def _require_remote(repo: Repo, remote: str) -> None:
    names = [r.name for r in repo.remotes]
    if remote not in names:
        known = ", ".join(names) or "none"
        raise BadInputError(
            f"the repository has no git remote named {remote!r} (remotes: {known})",
            hint="pass --remote NAME, or add one with `git remote add origin URL`",
        )


def _local_tip(repo: Repo, branch: str) -> str:
    ref = f"refs/heads/{branch}"
    if not git_succeeds(repo, "rev-parse", "--verify", "--quiet", ref):
        raise BadInputError(f"there is no local branch {branch} to push", hint="deliver it first")
    return str(repo.git.execute(["git", "rev-parse", "--verify", ref], env=QUIET_ENV))


def _remote_tip(repo: Repo, remote: str, branch: str) -> str | None:
    listing = _git_network(repo, remote, "ls-remote", remote, f"refs/heads/{branch}")
    for line in listing.splitlines():
        sha, ref = line.split("\t", 1)
        if ref == f"refs/heads/{branch}":
            return sha
    return None


def _require_torchport_tip(repo: Repo, remote: str, branch: str, sha: str) -> None:
    if not git_succeeds(repo, "cat-file", "-e", f"{sha}^{{commit}}"):
        _git_network(
            repo,
            remote,
            "fetch",
            "--no-tags",
            "--no-write-fetch-head",
            remote,
            f"refs/heads/{branch}",
        )
    if not made_by_torchport(repo, sha):
        raise BadInputError(
            f"{remote} has a branch {branch} whose tip {sha[:7]} was not made by torchport (no "
            f"{RUN_TRAILER} trailer); --force replaces only torchport's own branches",
            hint="pass --branch NAME to deliver to another branch",
        )


def _git_network(repo: Repo, remote: str, *args: str, hint: str = PUSH_HINT) -> str:
    try:
        return str(repo.git.execute(["git", *args], env=QUIET_ENV))
    except GitCommandError as exc:
        raise InfraError(
            f"`git {args[0]}` with {remote} failed: {git_message(exc)}", hint=hint
        ) from exc
