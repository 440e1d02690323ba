"""The four pull-request calls torchport makes (and the repository lookup), typed."""

import urllib.parse
from dataclasses import dataclass
from typing import Any

from tools.github.transport import DEFAULT_API_URL, DEFAULT_RETRY, RetryPolicy, Transport


@dataclass(frozen=True)
class PullRequestInfo:
    """The fields of a GitHub pull request torchport uses."""

    number: int
    url: str
    """The web page (`html_url`)."""
    title: str
    body: str
    head: str
    base: str
    state: str
    draft: bool

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "PullRequestInfo":
        """From GitHub's pull-request object."""
        return cls(
            number=int(data["number"]),
            url=str(data["html_url"]),
            title=str(data.get("title") or ""),
            body=str(data.get("body") or ""),
            head=str(data["head"]["ref"]),
            base=str(data["base"]["ref"]),
            state=str(data["state"]),
            draft=bool(data.get("draft", False)),
        )


class GitHubClient:
    """A GitHub REST client for one token and API base (GitHub Enterprise: https://HOST/api/v3).

    Every failure is a GitHubAPIError (an InfraError) saying what GitHub answered and what to do.
    """

    def __init__(
        self,
        token: str,
        api_url: str = DEFAULT_API_URL,
        timeout_s: float = 30.0,
        *,
        retry: RetryPolicy = DEFAULT_RETRY,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self._transport = Transport(token, self.api_url, timeout_s, retry)

    def default_branch(self, owner: str, repo: str) -> str:
        """The repository's default branch (GET /repos/{owner}/{repo})."""
        data = self._transport.request(
            "GET", _repo_path(owner, repo), action=f"read the repository {owner}/{repo}"
        )
        return str(data["default_branch"])

    def find_open_pr(self, owner: str, repo: str, head_branch: str) -> PullRequestInfo | None:
        """The open pull request from `owner:head_branch`, if there is one."""
        pulls = self._transport.request(
            "GET",
            f"{_repo_path(owner, repo)}/pulls",
            action=f"list the pull requests of {owner}/{repo}",
            query={"head": f"{owner}:{head_branch}", "state": "open", "per_page": "100"},
        )
        matching = [
            PullRequestInfo.from_json(pull) for pull in pulls if pull["head"]["ref"] == head_branch
        ]
        return matching[0] if matching else None

    def create_pr(
        self,
        owner: str,
        repo: str,
        head: str,
        base: str,
        title: str,
        body: str,
        draft: bool = False,
    ) -> PullRequestInfo:
        """Open a pull request from branch `head` into `base`."""
        payload = {"title": title, "head": head, "base": base, "body": body, "draft": draft}
        data = self._transport.request(
            "POST",
            f"{_repo_path(owner, repo)}/pulls",
            action=f"create a pull request from {head} into {base} in {owner}/{repo}",
            payload=payload,
        )
        return PullRequestInfo.from_json(data)

    def update_pr(
        self,
        owner: str,
        repo: str,
        number: int,
        *,
        body: str | None = None,
        title: str | None = None,
    ) -> PullRequestInfo:
        """Replace the body and/or title of pull request `number`."""
        payload = {
            key: value for key, value in (("body", body), ("title", title)) if value is not None
        }
        if not payload:
            raise ValueError("update_pr needs a body or a title")
        data = self._transport.request(
            "PATCH",
            f"{_repo_path(owner, repo)}/pulls/{number}",
            action=f"update pull request #{number} in {owner}/{repo}",
            payload=payload,
        )
        return PullRequestInfo.from_json(data)

    def add_labels(self, owner: str, repo: str, number: int, labels: list[str]) -> list[str]:
        """Add `labels` to issue or pull request `number`; all its labels afterwards."""
        data = self._transport.request(
            "POST",
            f"{_repo_path(owner, repo)}/issues/{number}/labels",
            action=f"label pull request #{number} in {owner}/{repo}",
            payload={"labels": labels},
        )
        return [str(label["name"]) for label in data]


def _repo_path(owner: str, repo: str) -> str:
    return f"/repos/{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(repo, safe='')}"
