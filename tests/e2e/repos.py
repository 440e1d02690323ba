"""Small CUDA-first repositories for end-to-end tests, made as real git repos with an origin."""

import shutil
from pathlib import Path

import git

from tests.harness.tiny_suite import TRAIN

TINY_TRAIN = TRAIN.format(seed=0)

SUITE = Path(__file__).resolve().parents[2] / "evals" / "suite"


def make_git_repo(
    root: Path, files: dict[str, str] | None = None, *, copy_of: Path | None = None
) -> Path:
    """A committed repository at `root` with a bare `origin` beside it (`root.parent/origin.git`)."""
    if copy_of is not None:
        shutil.copytree(copy_of, root, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        root.mkdir(parents=True)
    for name, text in (files or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Test User")
        config.set_value("user", "email", "test@example.com")
    repo.git.add("-A")
    repo.index.commit("initial CUDA version")
    origin = git.Repo.init(root.parent / "origin.git", bare=True, initial_branch="main")
    repo.create_remote("origin", str(origin.working_dir if not origin.bare else origin.git_dir))
    repo.git.push("origin", "main")
    return root


def tree_snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the working tree (without .git), for byte-identity checks."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }
