"""Choose the branch a delivery goes to: `torchport/<target>`, a free `-N` suffix, the caller's
name, or (with force) a branch torchport made before."""

from dataclasses import dataclass

from git import Repo

from agent.errors import BadInputError
from tools.git.commits import RUN_TRAILER, run_id_of
from tools.git.repo import RepoState
from tools.git.runner import git_output, git_succeeds

BRANCH_PREFIX = "torchport/"
MAX_SUFFIX = 99
_REPLACE_HINT = "pass another --branch NAME, or --force to replace a branch torchport made"


@dataclass(frozen=True)
class BranchChoice:
    """The branch to write, and the tip of the local branch it replaces (force), if any."""

    name: str
    replaces: str | None = None


def default_branch_name(target: str) -> str:
    """`torchport/<target>`."""
    return f"{BRANCH_PREFIX}{target}"


def choose_branch(
    repo: Repo, state: RepoState, *, target: str, branch: str | None, force: bool
) -> BranchChoice:
    """The branch name to use; BadInputError when the wanted name cannot be used as asked.

    Existing names are local branches and remote-tracking branches of every remote. Without
    `force`, the default name gets the first free suffix (`torchport/tpu-2`, `-3`, …) and an
    explicit `branch` that exists is refused. With `force`, an existing branch is replaced only if
    torchport made its tip (the `Torchport-Run` trailer) and it is not checked out anywhere.
    """
    wanted = branch or default_branch_name(target)
    check_branch_name(repo, wanted)
    refs = branch_refs(repo)
    taken = _tips_named(refs, repo, wanted)
    _refuse_path_conflict(refs, wanted)
    if not taken:
        return BranchChoice(wanted)
    if force:
        _refuse_replacing(repo, state, wanted, taken)
        return BranchChoice(wanted, replaces=taken.get(f"refs/heads/{wanted}"))
    if branch is not None:
        where = ", ".join(taken)
        raise BadInputError(f"branch {wanted} already exists ({where})", hint=_REPLACE_HINT)
    for number in range(2, MAX_SUFFIX + 1):
        candidate = f"{wanted}-{number}"
        if not _tips_named(refs, repo, candidate) and not _path_conflicts(refs, candidate):
            return BranchChoice(candidate)
    raise BadInputError(f"branches {wanted} to {wanted}-{MAX_SUFFIX} all exist", hint=_REPLACE_HINT)


def check_branch_name(repo: Repo, name: str) -> None:
    """BadInputError unless `name` is a valid git branch name."""
    if name.startswith("-") or not git_succeeds(repo, "check-ref-format", f"refs/heads/{name}"):
        raise BadInputError(
            f"{name!r} is not a valid git branch name",
            hint="see `git help check-ref-format`; e.g. torchport/tpu-migration",
        )


def branch_refs(repo: Repo) -> dict[str, str]:
    """Every local and remote-tracking branch ref and the commit it points at."""
    listing = git_output(
        repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads", "refs/remotes"
    )
    refs: dict[str, str] = {}
    for line in listing.splitlines():
        sha, ref = line.split(" ", 1)
        refs[ref] = sha
    return refs


def made_by_torchport(repo: Repo, commit: str) -> bool:
    """Whether `commit` carries the `Torchport-Run` trailer."""
    message = repo.commit(commit).message
    return run_id_of(message if isinstance(message, str) else message.decode()) is not None


def _tips_named(refs: dict[str, str], repo: Repo, name: str) -> dict[str, str]:
    wanted = {f"refs/heads/{name}"} | {f"refs/remotes/{r.name}/{name}" for r in repo.remotes}
    return {ref: sha for ref, sha in refs.items() if ref in wanted}


def _path_conflicts(refs: dict[str, str], name: str) -> list[str]:
    """Local branches that cannot coexist with `name` (`a` blocks `a/b` and the other way)."""
    local = [ref.removeprefix("refs/heads/") for ref in refs if ref.startswith("refs/heads/")]
    return [b for b in local if b.startswith(f"{name}/") or name.startswith(f"{b}/")]


def _refuse_path_conflict(refs: dict[str, str], name: str) -> None:
    conflicts = _path_conflicts(refs, name)
    if conflicts:
        raise BadInputError(
            f"branch {name} cannot be created next to the existing branch {conflicts[0]}",
            hint="pass --branch NAME with a name that neither contains nor extends it",
        )


def _refuse_replacing(repo: Repo, state: RepoState, name: str, taken: dict[str, str]) -> None:
    if name in checked_out_branches(repo) or name == state.branch:
        raise BadInputError(
            f"branch {name} is checked out; torchport will not replace the branch you are on",
            hint="switch to your base branch (`git switch main`) and rerun",
        )
    for ref, sha in taken.items():
        if not made_by_torchport(repo, sha):
            raise BadInputError(
                f"{ref} was not made by torchport (its tip {sha[:7]} has no {RUN_TRAILER} "
                "trailer): --force replaces only torchport's own branches",
                hint="pass --branch NAME to deliver to another branch",
            )


def checked_out_branches(repo: Repo) -> set[str]:
    """Branches checked out in any worktree of the repository."""
    listing = git_output(repo, "worktree", "list", "--porcelain")
    return {
        line.removeprefix("branch refs/heads/")
        for line in listing.splitlines()
        if line.startswith("branch refs/heads/")
    }
