"""Who authors and commits torchport's commits."""

from dataclasses import dataclass
from typing import Literal

from git import Repo


@dataclass(frozen=True)
class Identity:
    """A git identity: the name and email that go into a commit's author or committer line."""

    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"

    def as_env(self, role: Literal["AUTHOR", "COMMITTER"]) -> dict[str, str]:
        """The environment variables that make git use this identity for `role`."""
        return {f"GIT_{role}_NAME": self.name, f"GIT_{role}_EMAIL": self.email}


TORCHPORT_IDENTITY = Identity("torchport", "torchport@users.noreply.github.com")
"""Used when neither the caller nor the user's git configuration names an identity."""


def configured_identity(repo: Repo) -> Identity | None:
    """The identity from the user's git configuration (`user.name`, `user.email`), if both are set.

    Read with `git config`, so repository, global (`GIT_CONFIG_GLOBAL` included), system and
    included files all count, exactly as for the user's own commits.
    """
    name = _config_value(repo, "user.name")
    email = _config_value(repo, "user.email")
    if name and email:
        return Identity(name, email)
    return None


def _config_value(repo: Repo, key: str) -> str | None:
    status, out, _ = repo.git.execute(
        ["git", "config", "--get", key], with_extended_output=True, with_exceptions=False
    )
    value = str(out).strip()
    return value if status == 0 and value else None
