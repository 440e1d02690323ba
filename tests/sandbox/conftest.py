"""Sandboxes under test: the real Docker engine and both local isolations."""

from pathlib import Path

import pytest

from sandbox.types import Sandbox

BACKENDS = [
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
    pytest.param("bwrap", id="bwrap"),
    pytest.param("unshare", id="unshare"),
]


def make_backend(name: str) -> Sandbox:
    """The sandbox called `name`; skips when this host cannot offer a local one."""
    if name == "docker":
        from sandbox.docker_sandbox import DockerSandbox

        return DockerSandbox()
    from sandbox.local_sandbox import LocalSandbox, bwrap_problem

    if name == "bwrap" and (problem := bwrap_problem()):
        pytest.skip(problem)
    return LocalSandbox(name)  # type: ignore[arg-type]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Sandbox:
    """Each sandbox in turn."""
    return make_backend(request.param)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small repository with a script, a data folder, a symlink and a `.git` folder."""
    root = tmp_path / "repo"
    (root / "data").mkdir(parents=True)
    (root / "train.py").write_text("print('training')\n")
    (root / "data" / "values.txt").write_text("1 2 3\n")
    (root / "link.txt").symlink_to("data/values.txt")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root
