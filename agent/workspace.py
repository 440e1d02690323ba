"""The workspace: a patched copy of the repo, kept as a scratch git repository in the run folder.

Every completed edit is a commit there, so the agent state only records commit ids, a resumed
run resets the tree to the last checkpointed commit, and diffs per change come from git. The
user's repository is never touched by this module.
"""

import shutil
import tarfile
import tempfile
from pathlib import Path

import git

from agent.errors import BadInputError

IDENTITY = ("torchport", "torchport@users.noreply.github.com")


def export_commit(repo_root: Path, commit: str, destination: Path) -> None:
    """Write the tree of `commit` in `repo_root` to `destination` (tracked files only)."""
    destination.mkdir(parents=True, exist_ok=True)
    repo = git.Repo(repo_root)
    with tempfile.TemporaryFile() as archive:
        repo.archive(archive, treeish=commit, format="tar")
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(destination, filter="data")


class Workspace:
    """A scratch git repository holding the migrated tree."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._repo = git.Repo(path)

    @classmethod
    def create(cls, source: Path, path: Path) -> "Workspace":
        """Copy `source` to `path` and commit it as the base of the migration."""
        if path.exists():
            raise BadInputError(f"workspace {path} already exists", hint="use a new run folder")
        shutil.copytree(source, path, symlinks=True)
        repo = git.Repo.init(path)
        with repo.config_writer() as config:
            config.set_value("user", "name", IDENTITY[0])
            config.set_value("user", "email", IDENTITY[1])
            config.set_value("commit", "gpgsign", "false")
        workspace = cls(path)
        workspace.commit("torchport: original tree", allow_empty=True)
        return workspace

    def head(self) -> str:
        """The current commit id."""
        return self._repo.head.commit.hexsha

    def base(self) -> str:
        """The commit holding the original tree."""
        return self._repo.git.rev_list("--max-parents=0", "HEAD").split()[0]

    def commit(self, message: str, *, allow_empty: bool = False) -> str | None:
        """Commit every change in the tree; None when nothing changed (and not `allow_empty`)."""
        self._repo.git.add("-A")
        if not allow_empty and not self._repo.git.status("--porcelain"):
            return None
        self._repo.git.commit("-m", message, "--allow-empty", "--no-verify")
        return self.head()

    def reset(self, commit: str) -> None:
        """Make the tree exactly `commit` again (drop uncommitted edits and new files)."""
        self._repo.git.reset("--hard", commit)
        self._repo.git.clean("-fdxq")

    def diff(self, start: str | None = None, end: str = "HEAD") -> str:
        """Unified diff between two commits (default: base to HEAD)."""
        return str(self._repo.git.diff(start or self.base(), end, "--no-color", "--no-ext-diff"))

    def uncommitted_diff(self) -> str:
        """Unified diff of edits not yet committed (including new files)."""
        self._repo.git.add("-A", "--intent-to-add")
        return str(self._repo.git.diff("--no-color", "--no-ext-diff"))

    def changed_files(self, start: str, end: str = "HEAD") -> list[str]:
        """Paths changed between two commits."""
        names = self._repo.git.diff("--name-only", start, end)
        return [name for name in names.splitlines() if name]

    def file_at(self, commit: str, relative: str) -> bytes | None:
        """The content of `relative` at `commit`, or None when it does not exist there."""
        try:
            blob = self._repo.commit(commit).tree / relative
        except KeyError:
            return None
        data: bytes = blob.data_stream.read()
        return data

    def message(self, commit: str) -> str:
        """The full message of `commit`."""
        return str(self._repo.commit(commit).message)

    def copy_tree_to(self, destination: Path) -> None:
        """Write the current tree (without the scratch `.git`) to `destination`."""
        shutil.copytree(
            self.path,
            destination,
            symlinks=True,
            ignore=shutil.ignore_patterns(".git"),
            dirs_exist_ok=True,
        )
