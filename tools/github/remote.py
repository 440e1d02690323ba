"""Which GitHub repository a git remote is: parse https, ssh and scp-style (`git@host:o/r`) URLs."""

import re
from dataclasses import dataclass

from agent.errors import BadInputError

_SLUG = re.compile(r"^(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/(?P<name>[A-Za-z0-9._-]+)$")
_URL = re.compile(r"^(?:https?|ssh|git)://(?:[^@/]+@)?[^/:]+(?::\d+)?/(?P<path>.+)$")
_SCP = re.compile(r"^(?:[^@/:]+@)?[^/:]+:(?!/)(?P<path>.+)$")


@dataclass(frozen=True)
class RepoSlug:
    """A GitHub repository's `owner/name`."""

    owner: str
    name: str

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


def slug_from_remote_url(url: str) -> RepoSlug | None:
    """`owner/name` from a remote URL, or None for a local path or an unrecognised shape.

    Accepts `https://host/o/r(.git)`, `ssh://git@host(:port)/o/r.git`, `git://host/o/r` and
    `git@host:o/r.git`, for github.com and GitHub Enterprise hosts alike.
    """
    match = _URL.match(url) or _SCP.match(url)
    if not match:
        return None
    path = match["path"].rstrip("/").removesuffix(".git")
    slug = _SLUG.match(path)
    return RepoSlug(slug["owner"], slug["name"]) if slug else None


def parse_slug(text: str, *, source: str) -> RepoSlug:
    """`owner/name` given by a person (`--repo`, GITHUB_REPOSITORY); BadInputError if malformed."""
    slug = _SLUG.match(text.strip())
    if not slug:
        raise BadInputError(
            f"{source} {text!r} is not a GitHub repository name",
            hint="write it as OWNER/NAME, e.g. torchport/torchport",
        )
    return RepoSlug(slug["owner"], slug["name"])
