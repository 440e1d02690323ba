"""The scratch workspace: commits per change, reset for resume, diffs, export from a real repo."""

from pathlib import Path

import git
import pytest

from agent.errors import BadInputError
from agent.workspace import Workspace, export_commit


@pytest.fixture
def user_repo(tmp_path: Path) -> Path:
    root = tmp_path / "user"
    root.mkdir()
    repo = git.Repo.init(root)
    (root / "train.py").write_text("x = 1\n")
    (root / "notes.txt").write_text("committed\n")
    repo.index.add(["train.py", "notes.txt"])
    repo.index.commit("init")
    (root / "scratch.txt").write_text("untracked\n")
    return root


def test_export_takes_only_the_committed_tree(user_repo: Path, tmp_path: Path) -> None:
    head = git.Repo(user_repo).head.commit.hexsha
    export_commit(user_repo, head, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["notes.txt", "train.py"]


def test_commit_reset_and_diff(user_repo: Path, tmp_path: Path) -> None:
    head = git.Repo(user_repo).head.commit.hexsha
    export_commit(user_repo, head, tmp_path / "original")
    workspace = Workspace.create(tmp_path / "original", tmp_path / "ws")
    base = workspace.head()
    assert workspace.commit("nothing") is None

    (workspace.path / "train.py").write_text("x = 2\n")
    first = workspace.commit("TP001: change x")
    assert first is not None
    assert workspace.changed_files(base) == ["train.py"]
    assert "+x = 2" in workspace.diff()
    assert workspace.file_at(base, "train.py") == b"x = 1\n"
    assert workspace.file_at(base, "missing.py") is None

    (workspace.path / "train.py").write_text("x = 3\n")
    (workspace.path / "new.py").write_text("y = 1\n")
    assert "+x = 3" in workspace.uncommitted_diff()
    workspace.reset(first)
    assert (workspace.path / "train.py").read_text() == "x = 2\n"
    assert not (workspace.path / "new.py").exists()
    assert workspace.base() == base


def test_existing_workspace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "ws").mkdir()
    with pytest.raises(BadInputError):
        Workspace.create(tmp_path / "src", tmp_path / "ws")
