"""A work repository with a real bare `origin`, and the fake GitHub serving that origin."""

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.git.repos import isolate_git_config, make_bare_origin, make_work_repo
from tools.github.client import GitHubClient
from tools.github.testing.fake_server import FakeGitHubServer
from tools.github.transport import RetryPolicy

SLUG = "octo/demo"
TOKEN = "ghp_valid_token"
READ_ONLY_TOKEN = "ghp_read_only"
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_s=0.01, max_wait_s=5.0)


@dataclass(frozen=True)
class Origin:
    """The user's clone and its bare `origin`."""

    work: Path
    bare: Path


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    isolate_git_config(home, monkeypatch)


@pytest.fixture
def origin(tmp_path: Path) -> Origin:
    work = make_work_repo(tmp_path / "work")
    return Origin(work, make_bare_origin(work, tmp_path / "origin.git"))


@pytest.fixture
def fake_github(origin: Origin) -> Iterator[FakeGitHubServer]:
    """The fake GitHub serving `octo/demo` (backed by the bare origin) for TOKEN."""
    with FakeGitHubServer() as server:
        server.github.add_repo(SLUG, origin.bare)
        server.github.add_token(TOKEN)
        server.github.add_token(READ_ONLY_TOKEN, can_write=False)
        yield server


@pytest.fixture
def client(fake_github: FakeGitHubServer) -> GitHubClient:
    return GitHubClient(TOKEN, fake_github.api_url, timeout_s=10, retry=FAST_RETRY)


@pytest.fixture
def closed_port_url() -> str:
    """An http URL on a port nothing listens on (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
