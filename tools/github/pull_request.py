"""`--open-pr`: push the delivered branch, then open its pull request or update the open one."""

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.errors import BadInputError
from agent.log import get_logger
from tools.github.client import GitHubClient, PullRequestInfo
from tools.github.errors import GitHubAPIError
from tools.github.push import push_branch, remote_urls
from tools.github.remote import RepoSlug, parse_slug, slug_from_remote_url
from tools.github.transport import DEFAULT_API_URL, DEFAULT_RETRY, RetryPolicy

log: logging.Logger = get_logger(__name__)

MAX_BODY_CHARS = 65_536
"""GitHub refuses a longer pull-request body (422 "body is too long")."""
TRUNCATION_NOTE = "\n\n… (truncated: the full report is MIGRATION_REPORT.md on the branch)\n"


@dataclass(frozen=True)
class PullRequest:
    """The pull request a delivery ended in: its page, number, and whether this run opened it."""

    url: str
    number: int
    created: bool


@dataclass(frozen=True)
class GitHubEnvironment:
    """The GitHub settings read from the environment (see `github_environment`)."""

    token: str | None
    api_url: str | None
    repo_slug: str | None


def github_environment(env: Mapping[str, str]) -> GitHubEnvironment:
    """Token from GH_TOKEN, else GITHUB_TOKEN; API base from GITHUB_API_URL; GITHUB_REPOSITORY."""
    return GitHubEnvironment(
        token=env.get("GH_TOKEN") or env.get("GITHUB_TOKEN") or None,
        api_url=env.get("GITHUB_API_URL") or None,
        repo_slug=env.get("GITHUB_REPOSITORY") or None,
    )


def pr_title(target: str) -> str:
    """The pull request's title: `Migrate to <target> with torchport`."""
    return f"Migrate to {target} with torchport"


def open_or_update_pr(
    repo_root: Path,
    branch: str,
    *,
    base: str | None,
    title: str,
    body: str,
    labels: list[str],
    remote: str = "origin",
    token: str | None,
    api_url: str | None,
    repo_slug: str | None = None,
    force: bool = False,
    draft: bool = False,
    retry: RetryPolicy = DEFAULT_RETRY,
) -> PullRequest:
    """Push `branch` to `remote`, then open a pull request into `base` or update the open one.

    The repository is `repo_slug` when given, else parsed from the remote's URL (a local-path
    remote needs `repo_slug`). `base` None means the repository's default branch. An open pull
    request for the branch gets the new body (and labels) instead of a duplicate. Config problems
    (no token, unknown repository name) are BadInputError before anything is pushed; GitHub's
    refusals and network failures are InfraError (GitHubAPIError) after the push, and the pushed
    branch stays on the remote. `force` is push_branch's; `retry` bounds the API retries.
    """
    if not token:
        raise BadInputError(
            "opening a pull request needs a GitHub token",
            hint="set GITHUB_TOKEN or GH_TOKEN to a token that can push and open pull requests",
        )
    slug = _repository(repo_root, remote, repo_slug)
    client = GitHubClient(token, api_url or DEFAULT_API_URL, retry=retry)
    push_branch(repo_root, branch, remote=remote, force=force)
    try:
        target_base = base or client.default_branch(slug.owner, slug.name)
        pull, created = _open_or_update(client, slug, branch, target_base, title, body, draft)
        if labels:
            client.add_labels(slug.owner, slug.name, pull.number, labels)
    except GitHubAPIError as exc:
        raise exc.with_context(
            f"the branch {branch} is pushed to {remote} and stays there"
        ) from exc
    log.info("%s pull request #%d: %s", "opened" if created else "updated", pull.number, pull.url)
    return PullRequest(url=pull.url, number=pull.number, created=created)


def fit_body(body: str) -> str:
    """`body` cut to GitHub's limit, with a note saying where the rest is."""
    if len(body) <= MAX_BODY_CHARS:
        return body
    return body[: MAX_BODY_CHARS - len(TRUNCATION_NOTE)] + TRUNCATION_NOTE


def _open_or_update(
    client: GitHubClient,
    slug: RepoSlug,
    branch: str,
    base: str,
    title: str,
    body: str,
    draft: bool,
) -> tuple[PullRequestInfo, bool]:
    existing = client.find_open_pr(slug.owner, slug.name, branch)
    if existing is None:
        try:
            pull = client.create_pr(
                slug.owner, slug.name, branch, base, title, fit_body(body), draft
            )
            return pull, True
        except GitHubAPIError as exc:
            if not exc.pull_request_exists:
                raise
            existing = client.find_open_pr(slug.owner, slug.name, branch)
            if existing is None:
                raise
    return client.update_pr(slug.owner, slug.name, existing.number, body=fit_body(body)), False


def _repository(repo_root: Path, remote: str, repo_slug: str | None) -> RepoSlug:
    if repo_slug:
        return parse_slug(repo_slug, source="the repository")
    urls = remote_urls(repo_root, remote)
    for url in urls:
        slug = slug_from_remote_url(url)
        if slug is not None:
            return slug
    raise BadInputError(
        f"cannot tell which GitHub repository the remote {remote} ({urls[0]}) is",
        hint="pass the repository as OWNER/NAME (--repo, or GITHUB_REPOSITORY)",
    )
