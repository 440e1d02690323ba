"""Real git repositories for tests, built with the git command line (not the code under test)."""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

USER_NAME = "Ada Lovelace"
USER_EMAIL = "ada@example.org"


def git(cwd: Path, *args: str) -> str:
    """The stripped stdout of `git <args>` in `cwd`; fails the test when git fails."""
    result = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
    return result.stdout.strip()


def isolate_git_config(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point git at an empty global config under `home`; returns that config file."""
    config = home / "gitconfig"
    config.write_text("")
    setenv, delenv = monkeypatch.setenv, monkeypatch.delenv
    setenv("HOME", str(home))
    setenv("GIT_CONFIG_GLOBAL", str(config))
    setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        for part in ("NAME", "EMAIL", "DATE"):
            delenv(f"GIT_{role}_{part}", raising=False)
    delenv("EMAIL", raising=False)
    delenv("GIT_DIR", raising=False)
    delenv("GIT_INDEX_FILE", raising=False)
    return config


def make_work_repo(root: Path, *, identity: bool = True) -> Path:
    """A repository on `main` with a few files (one executable, one ignored) and two commits."""
    root.mkdir(parents=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "config", "user.name", USER_NAME)
    git(root, "config", "user.email", USER_EMAIL)
    (root / "src").mkdir()
    (root / "src" / "train.py").write_text(
        "import torch\n\ndevice = torch.device('cuda')\nmodel = Net().to(device)\n"
    )
    (root / "src" / "util.py").write_text("def helper():\n    return 1\n")
    (root / "run.sh").write_text("#!/bin/sh\npython src/train.py\n")
    (root / "run.sh").chmod(0o755)
    (root / ".gitignore").write_text("*.log\n")
    (root / "train.log").write_text("ignored output\n")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "Initial code")
    (root / "README.md").write_text("# demo\n")
    git(root, "add", "README.md")
    git(root, "commit", "--quiet", "-m", "Add a README")
    if not identity:
        git(root, "config", "--unset", "user.name")
        git(root, "config", "--unset", "user.email")
    return root


def make_bare_origin(work: Path, bare: Path) -> Path:
    """A bare repository holding `work`'s main branch, added to `work` as `origin`."""
    git(work.parent, "init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    git(work, "remote", "add", "origin", str(bare))
    git(work, "push", "--quiet", "origin", "main")
    git(work, "fetch", "--quiet", "origin")
    return bare


def checkout_snapshot(root: Path) -> dict[str, str]:
    """Hashes of everything a user could lose: every working-tree file (ignored ones too), the
    index file's bytes, HEAD, the current branch's tip and the list of stashes."""
    snapshot: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts or not path.is_file():
            continue
        data = path.read_bytes() + oct(path.stat().st_mode).encode()
        snapshot[str(path.relative_to(root))] = hashlib.sha256(data).hexdigest()
    git_dir = root / ".git"
    snapshot[".git/index"] = hashlib.sha256((git_dir / "index").read_bytes()).hexdigest()
    snapshot[".git/HEAD"] = (git_dir / "HEAD").read_text()
    snapshot["HEAD commit"] = git(root, "rev-parse", "HEAD")
    snapshot["stashes"] = git(root, "stash", "list")
    return snapshot


def git_dir_snapshot(root: Path) -> dict[str, str]:
    """Hashes of every file under `.git` (objects, refs, logs, index): proves nothing was written."""
    git_dir = root / ".git"
    return {
        str(path.relative_to(git_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(git_dir.rglob("*"))
        if path.is_file()
    }
