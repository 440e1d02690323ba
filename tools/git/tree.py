"""Write commits with git plumbing and a private index file: the user's index and working tree
are never read for content nor written (`read-tree`, `hash-object`, `update-index --cacheinfo`,
`write-tree`, `commit-tree`)."""

import logging
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from git import Repo

from agent.log import get_logger
from tools.git.identity import Identity
from tools.git.runner import git_output

log: logging.Logger = get_logger(__name__)

REGULAR_FILE_MODE = "100644"
SUBMODULE_MODE = "160000"


class CommitWriter:
    """Stages changes into a private index that starts as a base commit's tree, and commits it."""

    def __init__(self, repo: Repo, scratch: Path) -> None:
        self.repo = repo
        self.scratch = scratch
        self.env = {"GIT_INDEX_FILE": str(scratch / "index"), "GIT_LITERAL_PATHSPECS": "1"}

    def git(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        """`git <args>` against the private index (never `core.splitIndex` shared files)."""
        return git_output(
            self.repo, "-c", "core.splitIndex=false", *args, env={**self.env, **(env or {})}
        )

    def stage(self, changes: Mapping[str, bytes | None]) -> None:
        """Put each new content (or deletion) into the private index, keeping existing modes."""
        modes = self._modes(sorted(changes))
        removed = [path for path, content in changes.items() if content is None]
        for path in removed:
            if path not in modes:
                log.warning("%s is planned for deletion but is not in the tree", path)
        if removed:
            self.git("update-index", "--force-remove", "--", *removed)
        cacheinfo: list[str] = []
        for path, content in changes.items():
            if content is None:
                continue
            mode = modes.get(path, REGULAR_FILE_MODE)
            if mode == SUBMODULE_MODE:
                raise ValueError(f"{path} is a git submodule; torchport cannot write it as a file")
            cacheinfo += ["--cacheinfo", f"{mode},{self._hash_blob(path, content)},{path}"]
        if cacheinfo:
            self.git("update-index", "--add", *cacheinfo)

    def write_tree(self) -> str:
        """The id of the tree the private index holds now."""
        return self.git("write-tree")

    def commit(
        self, tree: str, parent: str, message: str, *, author: Identity, committer: Identity
    ) -> str:
        """A new commit object (no ref moves) with `tree`, one `parent`, and the identities."""
        message_file = self.scratch / "message"
        message_file.write_text(message, encoding="utf-8")
        identities = {**author.as_env("AUTHOR"), **committer.as_env("COMMITTER")}
        return self.git("commit-tree", tree, "-p", parent, "-F", str(message_file), env=identities)

    def _modes(self, paths: list[str]) -> dict[str, str]:
        listing = self.git("ls-files", "--stage", "-z", "--", *paths)
        modes: dict[str, str] = {}
        for entry in filter(None, listing.split("\0")):
            info, path = entry.split("\t", 1)
            modes[path] = info.split(" ", 1)[0]
        return modes

    def _hash_blob(self, path: str, content: bytes) -> str:
        blob_file = self.scratch / "blob"
        blob_file.write_bytes(content)
        return self.git("hash-object", "-w", f"--path={path}", "--", str(blob_file))


def tree_of(repo: Repo, commit: str) -> str:
    """The tree id of `commit`."""
    return git_output(repo, "rev-parse", "--verify", f"{commit}^{{tree}}")


@contextmanager
def private_index(repo: Repo, base_commit: str) -> Iterator[CommitWriter]:
    """A CommitWriter whose private index holds `base_commit`'s tree; removed on exit."""
    with tempfile.TemporaryDirectory(prefix="torchport-index-") as scratch:
        writer = CommitWriter(repo, Path(scratch))
        writer.git("read-tree", base_commit)
        yield writer
