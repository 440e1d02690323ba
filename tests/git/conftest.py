"""Every git test runs with an empty global git configuration and a fresh repository."""

from pathlib import Path

import pytest

from tests.git.repos import isolate_git_config, make_work_repo


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    isolate_git_config(home, monkeypatch)


@pytest.fixture
def work_repo(tmp_path: Path) -> Path:
    """A clean repository on `main` with the user's identity configured."""
    return make_work_repo(tmp_path / "work")
