"""Open the repository a migration starts from, and refuse one with uncommitted work."""

import logging
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from git import InvalidGitRepositoryError, NoSuchPathError, Repo

from agent.errors import BadInputError
from agent.log import get_logger
from tools.git.identity import Identity, configured_identity
from tools.git.runner import git_bytes

log: logging.Logger = get_logger(__name__)

SHOWN_CHANGES = 20
"""How many uncommitted files the refusal lists before it says "and N more"."""


@dataclass(frozen=True)
class RepoState:
    """The repository as torchport found it: where it is, what HEAD is, who the user is."""

    root: Path
    """The top level of the working tree."""
    head_sha: str
    """The commit HEAD points at: the base of the branch torchport creates."""
    branch: str | None
    """The checked-out branch, or None when HEAD is detached."""
    is_clean: bool
    """No staged, unstaged or untracked (not ignored) changes."""
    user: Identity | None
    """The user's configured git identity, if `user.name` and `user.email` are both set."""
    path_in_repo: PurePosixPath = field(default_factory=lambda: PurePosixPath("."))
    """The path that was opened, relative to `root` ("." for the top level)."""
    changed_files: tuple[str, ...] = field(default=())
    """`git status --porcelain` lines (`XY path`) of the uncommitted changes."""

    @property
    def detached(self) -> bool:
        """Whether HEAD is detached (no current branch)."""
        return self.branch is None

    def describe(self) -> str:
        """`main at 1a2b3c4` or `detached HEAD at 1a2b3c4`, for messages and reports."""
        where = self.branch if self.branch else "detached HEAD"
        return f"{where} at {self.head_sha[:7]}"


def open_repo(path: Path, *, require_clean: bool = True) -> RepoState:
    """The state of the git repository that contains `path`.

    Raises BadInputError when `path` is not in a git working tree, when HEAD has no commit yet, and
    (with `require_clean`) when there are uncommitted changes, listing them. Nothing in the
    repository is written: not the index (no stat refresh), not the working tree, not a stash.
    """
    repo = _find_repo(path)
    root = Path(str(repo.working_tree_dir)).resolve()
    if not repo.head.is_valid():
        raise BadInputError(
            f"the git repository at {root} has no commit yet",
            hint="commit the code to migrate first; torchport branches from HEAD",
        )
    changed = uncommitted_changes(repo)
    if changed and require_clean:
        raise BadInputError(_dirty_message(root, changed), hint=_DIRTY_HINT)
    branch = None if repo.head.is_detached else repo.active_branch.name
    state = RepoState(
        root=root,
        head_sha=repo.head.commit.hexsha,
        branch=branch,
        is_clean=not changed,
        user=configured_identity(repo),
        path_in_repo=_relative_path(path, root),
        changed_files=tuple(changed),
    )
    if state.detached:
        log.info("HEAD is detached at %s; the branch will start from that commit", state.head_sha)
    return state


def uncommitted_changes(repo: Repo) -> list[str]:
    """`XY path` for each staged, unstaged or untracked-but-not-ignored file (porcelain v1)."""
    raw = git_bytes(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
    entries = [entry for entry in raw.split(b"\0") if entry]
    return [entry.decode("utf-8", errors="replace") for entry in entries]


_DIRTY_HINT = (
    "commit or stash them yourself (torchport never touches uncommitted work), "
    "or run on a clean clone"
)


def _find_repo(path: Path) -> Repo:
    if not path.exists():
        raise BadInputError(f"{path} does not exist", hint="check the path")
    start = path if path.is_dir() else path.parent
    try:
        repo = Repo(start, search_parent_directories=True)
    except NoSuchPathError:
        raise BadInputError(f"{path} does not exist", hint="check the path") from None
    except InvalidGitRepositoryError:
        raise BadInputError(
            f"{path} is not inside a git repository",
            hint="run `git init && git add -A && git commit` there first, or pass a clone",
        ) from None
    if repo.bare or repo.working_tree_dir is None:
        raise BadInputError(
            f"{path} is a bare git repository (no working tree)",
            hint="pass a clone with a working tree (`git clone` it first)",
        )
    return repo


def _dirty_message(root: Path, changed: list[str]) -> str:
    shown = ", ".join(changed[:SHOWN_CHANGES])
    more = f" and {len(changed) - SHOWN_CHANGES} more" if len(changed) > SHOWN_CHANGES else ""
    return f"{root} has uncommitted changes ({len(changed)}): {shown}{more}"


def _relative_path(path: Path, root: Path) -> PurePosixPath:
    return PurePosixPath(path.resolve().relative_to(root).as_posix())
