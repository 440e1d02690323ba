"""What the fake GitHub knows: repositories (backed by real bare git repositories), tokens, pull
requests and their labels, scripted failures, and every request it answered."""

import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

API_DOCS = "https://docs.github.com/rest"


@dataclass
class FakeRepo:
    """A repository: its `owner/name`, the bare git repository holding its branches."""

    owner: str
    name: str
    git_dir: Path
    default_branch: str = "main"
    private: bool = True

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def branch_sha(self, branch: str) -> str | None:
        """The tip of `branch` in the bare repository, or None when it has no such branch."""
        result = self._git("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
        return result.stdout.strip() if result.returncode == 0 else None

    def is_ancestor(self, commit: str, of: str) -> bool:
        """Whether `commit` is reachable from `of` (then a PR from it has no commits)."""
        return self._git("merge-base", "--is-ancestor", commit, of).returncode == 0

    def _git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args],
            capture_output=True,
            text=True,
            check=False,
        )


@dataclass(frozen=True)
class FakeToken:
    """A token the fake accepts: whose it is, whether it may write, which repos it sees."""

    value: str
    login: str = "torchport-bot"
    can_write: bool = True
    repos: frozenset[str] | None = None
    """`owner/name`s this token can see; None means all."""

    def sees(self, repo: FakeRepo) -> bool:
        return self.repos is None or repo.full_name in self.repos


@dataclass
class FakePull:
    """A pull request (its issue number is the same, as on GitHub)."""

    number: int
    repo: FakeRepo
    title: str
    body: str
    head: str
    base: str
    draft: bool
    author: str
    state: str = "open"
    maintainer_can_modify: bool = False
    labels: list[str] = field(default_factory=list)
    created_at: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ"))


@dataclass
class Injection:
    """A scripted answer: the next `times` requests matching method and path get it instead."""

    method: str
    path: re.Pattern[str]
    status: int
    payload: Any
    headers: dict[str, str]
    times: int


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the fake received it, and the status it answered."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    """The decoded JSON body, or None."""
    status: int


@dataclass(frozen=True)
class FakeResponse:
    """An answer: status, JSON payload (None for no body), extra headers."""

    status: int
    payload: Any
    headers: dict[str, str] = field(default_factory=dict)


def error(status: int, message: str, docs: str = API_DOCS, **extra: Any) -> FakeResponse:
    """An error answer shaped like GitHub's: message, documentation_url, status (as a string)."""
    return FakeResponse(
        status, {"message": message, **extra, "documentation_url": docs, "status": str(status)}
    )


@dataclass
class FakeGitHubState:
    """All mutable state, guarded by `lock` (the server answers from several threads)."""

    repos: dict[str, FakeRepo] = field(default_factory=dict)
    tokens: dict[str, FakeToken] = field(default_factory=dict)
    pulls: dict[str, list[FakePull]] = field(default_factory=dict)
    injections: list[Injection] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_number: dict[str, int] = field(default_factory=dict)

    def take_injection(self, method: str, path: str) -> FakeResponse | None:
        """The first scripted answer matching this request, used up by one."""
        for injection in self.injections:
            if injection.method == method and injection.path.fullmatch(path):
                injection.times -= 1
                if injection.times <= 0:
                    self.injections.remove(injection)
                return FakeResponse(injection.status, injection.payload, injection.headers)
        return None

    def new_number(self, repo: FakeRepo) -> int:
        number = self.next_number.get(repo.full_name, 1)
        self.next_number[repo.full_name] = number + 1
        return number
