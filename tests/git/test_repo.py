"""open_repo on real repositories: clean, inside a subfolder, detached, dirty, not a repo."""

from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pytest

from agent.errors import BadInputError
from tests.git.repos import USER_EMAIL, USER_NAME, checkout_snapshot, git, make_work_repo
from tools.git.identity import Identity
from tools.git.repo import open_repo


def test_clean_repo_on_a_branch(work_repo: Path) -> None:
    state = open_repo(work_repo)
    assert state.root == work_repo.resolve()
    assert state.head_sha == git(work_repo, "rev-parse", "HEAD")
    assert state.branch == "main"
    assert state.is_clean
    assert not state.detached
    assert state.user == Identity(USER_NAME, USER_EMAIL)
    assert state.path_in_repo == PurePosixPath(".")
    assert state.describe() == f"main at {state.head_sha[:7]}"


def test_path_inside_the_repo_finds_the_top_level(work_repo: Path) -> None:
    state = open_repo(work_repo / "src")
    assert state.root == work_repo.resolve()
    assert state.path_in_repo == PurePosixPath("src")
    assert open_repo(work_repo / "src" / "train.py").path_in_repo == PurePosixPath("src/train.py")


def test_detached_head_uses_the_commit(work_repo: Path) -> None:
    first = git(work_repo, "rev-parse", "HEAD~1")
    git(work_repo, "checkout", "--quiet", "--detach", first)
    state = open_repo(work_repo)
    assert state.branch is None
    assert state.detached
    assert state.head_sha == first
    assert state.describe() == f"detached HEAD at {first[:7]}"


def test_no_identity_configured_is_none(tmp_path: Path) -> None:
    repo = make_work_repo(tmp_path / "anon", identity=False)
    assert open_repo(repo).user is None


def test_global_identity_counts(tmp_path: Path) -> None:
    repo = make_work_repo(tmp_path / "anon", identity=False)
    git(repo, "config", "--global", "user.name", "Grace Hopper")
    git(repo, "config", "--global", "user.email", "grace@example.org")
    assert open_repo(repo).user == Identity("Grace Hopper", "grace@example.org")


def _modify(repo: Path) -> None:
    (repo / "src" / "util.py").write_text("changed\n")


def _add_untracked(repo: Path) -> None:
    (repo / "new.py").write_text("x = 1\n")


def _add_untracked_nested(repo: Path) -> None:
    (repo / "src" / "deep").mkdir()
    (repo / "src" / "deep" / "n.py").write_text("")


def _delete(repo: Path) -> None:
    (repo / "README.md").unlink()


def _stage(repo: Path) -> None:
    (repo / "README.md").write_text("staged\n")
    git(repo, "add", "README.md")


@pytest.mark.parametrize(
    ("make_dirty", "listed"),
    [
        (_modify, " M src/util.py"),
        (_add_untracked, "?? new.py"),
        (_add_untracked_nested, "?? src/deep/n.py"),
        (_delete, " D README.md"),
        (_stage, "M  README.md"),
    ],
    ids=["modified", "untracked", "untracked-nested", "deleted", "staged"],
)
def test_uncommitted_changes_are_refused_and_left_alone(
    work_repo: Path, make_dirty: Callable[[Path], None], listed: str
) -> None:
    make_dirty(work_repo)
    before = checkout_snapshot(work_repo)
    with pytest.raises(BadInputError) as caught:
        open_repo(work_repo)
    assert "has uncommitted changes (1)" in caught.value.message
    assert listed in caught.value.message
    assert "stash" in (caught.value.hint or "")
    assert checkout_snapshot(work_repo) == before


def test_ignored_files_do_not_count(work_repo: Path) -> None:
    (work_repo / "another.log").write_text("ignored\n")
    assert open_repo(work_repo).is_clean


def test_many_changes_are_summarised(work_repo: Path) -> None:
    for number in range(25):
        (work_repo / f"extra_{number:02}.py").write_text("")
    with pytest.raises(BadInputError) as caught:
        open_repo(work_repo)
    assert "(25)" in caught.value.message
    assert "extra_19.py" in caught.value.message
    assert "extra_20.py" not in caught.value.message
    assert "and 5 more" in caught.value.message


def test_dirty_tree_can_be_inspected_without_refusal(work_repo: Path) -> None:
    (work_repo / "new.py").write_text("")
    state = open_repo(work_repo, require_clean=False)
    assert not state.is_clean
    assert state.changed_files == ("?? new.py",)


def test_not_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(BadInputError, match="is not inside a git repository") as caught:
        open_repo(plain)
    assert "git init" in (caught.value.hint or "")


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="does not exist"):
        open_repo(tmp_path / "nowhere")


def test_bare_repository_is_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet", "--bare", "bare.git")
    with pytest.raises(BadInputError, match="bare git repository"):
        open_repo(tmp_path / "bare.git")


def test_repository_without_commits_is_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet", "empty")
    with pytest.raises(BadInputError, match="has no commit yet"):
        open_repo(tmp_path / "empty")
