"""`--dry-run`: the branch a delivery would create, its commits and their diff; writes nothing."""

import difflib
from dataclasses import dataclass
from typing import Literal

from git import Repo

from tools.git.commits import CommitPlan
from tools.git.identity import TORCHPORT_IDENTITY, Identity
from tools.git.naming import choose_branch
from tools.git.repo import RepoState
from tools.git.runner import git_bytes

ChangeKind = Literal["added", "modified", "deleted"]
_KIND_LETTER: dict[ChangeKind, str] = {"added": "A", "modified": "M", "deleted": "D"}


@dataclass(frozen=True)
class FileChange:
    """One file changed by one planned commit, with its line counts (0, 0 when binary)."""

    path: str
    kind: ChangeKind
    added_lines: int
    removed_lines: int
    binary: bool


def describe_delivery_plan(
    repo: RepoState,
    commits: list[CommitPlan],
    target: str,
    branch: str | None = None,
    *,
    force: bool = False,
    author: Identity | None = None,
) -> str:
    """The branch name deliver_branch would use, then each commit's subject and changed files."""
    git_repo = Repo(repo.root)
    choice = choose_branch(git_repo, repo, target=target, branch=branch, force=force)
    replacing = f", replacing its tip {choice.replaces[:7]}" if choice.replaces else ""
    identity = author or repo.user or TORCHPORT_IDENTITY
    lines = [
        f"Would create branch {choice.name} from {repo.describe()}{replacing}, "
        f"{len(commits)} commit(s) by {identity}:"
    ]
    planned = zip(commits, plan_file_changes(repo, commits), strict=True)
    for number, (plan, changes) in enumerate(planned, 1):
        lines.append(f"  {number}. {plan.subject}")
        lines += [f"       {_describe_change(change)}" for change in changes]
        if not changes:
            lines.append("       (changes nothing: would be left out)")
    lines.append("Nothing was written: no branch, commit or object.")
    return "\n".join(lines)


def plan_file_changes(repo: RepoState, commits: list[CommitPlan]) -> list[list[FileChange]]:
    """Per planned commit, the files it changes relative to the commit before it."""
    current = _ContentAtHead(Repo(repo.root), repo.head_sha)
    per_commit: list[list[FileChange]] = []
    for plan in commits:
        changes = []
        for path in sorted(plan.changes):
            old, new = current.get(path), plan.changes[path]
            if old != new:
                changes.append(_file_change(path, old, new))
            current.overlay[path] = new
        per_commit.append(changes)
    return per_commit


def delivery_diff(repo: RepoState, commits: list[CommitPlan]) -> str:
    """The unified diff of the whole plan against HEAD (`a/` and `b/` paths, as git shows it)."""
    at_head = _ContentAtHead(Repo(repo.root), repo.head_sha)
    final: dict[str, bytes | None] = {}
    for plan in commits:
        final.update(plan.changes)
    parts = []
    for path in sorted(final):
        old, new = at_head.get(path), final[path]
        if old != new:
            parts.append(_file_diff(path, old, new, at_head.modes.get(path, "100644")))
    return "".join(parts)


class _ContentAtHead:
    """File contents at a commit, read on demand with `git cat-file`, plus planned overrides."""

    def __init__(self, repo: Repo, commit: str) -> None:
        self.repo = repo
        self.commit = commit
        self.overlay: dict[str, bytes | None] = {}
        self.modes: dict[str, str] = {}

    def get(self, path: str) -> bytes | None:
        if path in self.overlay:
            return self.overlay[path]
        listing = git_bytes(self.repo, "ls-tree", "-z", self.commit, "--", path)
        entry = listing.rstrip(b"\0")
        if not entry:
            return None
        mode, object_type, object_id = entry.split(b"\t", 1)[0].split(b" ")[:3]
        if object_type != b"blob":
            return None
        self.modes[path] = mode.decode()
        return git_bytes(self.repo, "cat-file", "blob", object_id.decode())


def _file_change(path: str, old: bytes | None, new: bytes | None) -> FileChange:
    kind: ChangeKind = "added" if old is None else "deleted" if new is None else "modified"
    if _is_binary(old) or _is_binary(new):
        return FileChange(path, kind, 0, 0, binary=True)
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, _lines(old), _lines(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return FileChange(path, kind, added, removed, binary=False)


def _describe_change(change: FileChange) -> str:
    letter = _KIND_LETTER[change.kind]
    counts = "binary" if change.binary else f"+{change.added_lines} -{change.removed_lines}"
    return f"{letter} {change.path}  {counts}"


def _file_diff(path: str, old: bytes | None, new: bytes | None, old_mode: str) -> str:
    header = f"diff --git a/{path} b/{path}\n"
    if old is None:
        header += "new file mode 100644\n"
    elif new is None:
        header += f"deleted file mode {old_mode}\n"
    if _is_binary(old) or _is_binary(new):
        return f"{header}Binary files differ\n"
    before = f"a/{path}" if old is not None else "/dev/null"
    after = f"b/{path}" if new is not None else "/dev/null"
    lines = difflib.unified_diff(_lines(old), _lines(new), before, after)
    no_newline = "\n\\ No newline at end of file\n"
    return header + "".join(line if line.endswith("\n") else line + no_newline for line in lines)


def _lines(content: bytes | None) -> list[str]:
    return [] if content is None else content.decode("utf-8", errors="replace").splitlines(True)


def _is_binary(content: bytes | None) -> bool:
    return content is not None and b"\0" in content[:8000]
