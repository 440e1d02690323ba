"""End to end: deliver a branch, push it to a bare origin, open or update its PR on the fake."""

from pathlib import Path
from typing import Any

import pytest

from agent.errors import BadInputError, InfraError
from agent.exit_status import ExitStatus
from tests.git.repos import checkout_snapshot, git
from tests.github.conftest import FAST_RETRY, READ_ONLY_TOKEN, SLUG, TOKEN, Origin
from tools.git.branch import Delivery, deliver_branch
from tools.git.commits import CommitPlan
from tools.git.repo import open_repo
from tools.github.pull_request import (
    MAX_BODY_CHARS,
    TRUNCATION_NOTE,
    PullRequest,
    github_environment,
    open_or_update_pr,
    pr_title,
)
from tools.github.testing.fake_server import FakeGitHubServer

REPORT = "## Verdict: parity\n\n| probe | max abs err |\n|---|---|\n| loss | 0.0 |\n"


def deliver(work: Path, *, force: bool = False, text: bytes = b"migrated\n") -> Delivery:
    plans = [
        CommitPlan("TP001: migrate", {"src/train.py": text}),
        CommitPlan("Add MIGRATION_REPORT.md", {"MIGRATION_REPORT.md": REPORT.encode()}),
    ]
    return deliver_branch(open_repo(work), plans, target="tpu", force=force)


def open_pr(origin: Origin, server_url: str, branch: str, **overrides: Any) -> PullRequest:
    arguments: dict[str, Any] = {
        "base": "main",
        "title": pr_title("tpu"),
        "body": REPORT,
        "labels": ["torchport"],
        "remote": "origin",
        "token": TOKEN,
        "api_url": server_url,
        "repo_slug": SLUG,
        "retry": FAST_RETRY,
        **overrides,
    }
    return open_or_update_pr(origin.work, branch, **arguments)


def on_origin(origin: Origin, branch: str) -> str | None:
    refs = git(origin.bare, "for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}")
    return refs or None


def test_opens_a_pull_request_with_the_report(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    before = checkout_snapshot(origin.work)
    delivery = deliver(origin.work)
    pull = open_pr(origin, fake_github.api_url, delivery.branch)
    assert checkout_snapshot(origin.work) == before
    assert pull == PullRequest(url=f"{fake_github.api_url}/{SLUG}/pull/1", number=1, created=True)
    assert on_origin(origin, delivery.branch) == delivery.head_sha
    (stored,) = fake_github.github.pulls(SLUG)
    assert (stored.title, stored.body, stored.head, stored.base) == (
        "Migrate to tpu with torchport",
        REPORT,
        "torchport/tpu",
        "main",
    )
    assert stored.labels == ["torchport"]
    assert not stored.draft


def test_second_run_updates_the_open_pull_request(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    first = deliver(origin.work)
    open_pr(origin, fake_github.api_url, first.branch)
    second = deliver(origin.work, force=True, text=b"second run\n")
    pull = open_pr(origin, fake_github.api_url, second.branch, body="updated report", force=True)
    assert (pull.number, pull.created) == (1, False)
    (stored,) = fake_github.github.pulls(SLUG)
    assert stored.body == "updated report"
    assert stored.labels == ["torchport"]
    assert on_origin(origin, second.branch) == second.head_sha
    methods = [(r.method, r.path.rsplit("/", 1)[-1]) for r in fake_github.github.requests]
    assert methods.count(("POST", "pulls")) == 1
    assert ("PATCH", "1") in methods


def test_default_base_is_the_repositorys_default_branch(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    delivery = deliver(origin.work)
    open_pr(origin, fake_github.api_url, delivery.branch, base=None, draft=True)
    (stored,) = fake_github.github.pulls(SLUG)
    assert (stored.base, stored.draft) == ("main", True)


def test_repository_comes_from_a_github_remote_url(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    git(origin.work, "remote", "set-url", "origin", "git@github.com:octo/demo.git")
    git(origin.work, "config", f"url.{origin.bare}.insteadOf", "git@github.com:octo/demo.git")
    delivery = deliver(origin.work)
    pull = open_pr(origin, fake_github.api_url, delivery.branch, repo_slug=None)
    assert pull.created
    assert on_origin(origin, delivery.branch) == delivery.head_sha


def test_a_pull_request_missed_by_the_listing_is_updated(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    delivery = deliver(origin.work)
    open_pr(origin, fake_github.api_url, delivery.branch)
    fake_github.github.inject("GET", rf"/repos/{SLUG}/pulls", 200, payload=[])
    pull = open_pr(origin, fake_github.api_url, delivery.branch, body="after a race")
    assert (pull.number, pull.created) == (1, False)
    assert fake_github.github.pulls(SLUG)[0].body == "after a race"


def test_a_long_report_is_cut_to_githubs_limit(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    delivery = deliver(origin.work)
    open_pr(origin, fake_github.api_url, delivery.branch, body="x" * 100_000)
    (stored,) = fake_github.github.pulls(SLUG)
    assert len(stored.body) == MAX_BODY_CHARS
    assert stored.body.endswith(TRUNCATION_NOTE)


def test_no_token_is_bad_input_and_nothing_is_pushed(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    delivery = deliver(origin.work)
    with pytest.raises(BadInputError, match="needs a GitHub token"):
        open_pr(origin, fake_github.api_url, delivery.branch, token=None)
    assert on_origin(origin, delivery.branch) is None


def test_local_remote_without_a_repository_name_is_bad_input(
    origin: Origin, fake_github: FakeGitHubServer
) -> None:
    delivery = deliver(origin.work)
    with pytest.raises(BadInputError, match="cannot tell which GitHub repository") as caught:
        open_pr(origin, fake_github.api_url, delivery.branch, repo_slug=None)
    assert "GITHUB_REPOSITORY" in (caught.value.hint or "")
    assert on_origin(origin, delivery.branch) is None


@pytest.mark.parametrize(
    ("overrides", "status", "said"),
    [
        ({"token": "ghp_revoked"}, 401, "Bad credentials"),
        ({"token": READ_ONLY_TOKEN}, 403, "Resource not accessible"),
        ({"repo_slug": "octo/unknown"}, 404, "Not Found"),
        ({"base": "release"}, 422, "field=base code=invalid"),
    ],
    ids=["401", "403", "404", "422"],
)
def test_github_refusals_are_infra_and_the_branch_stays(
    origin: Origin,
    fake_github: FakeGitHubServer,
    overrides: dict[str, Any],
    status: int,
    said: str,
) -> None:
    delivery = deliver(origin.work)
    with pytest.raises(InfraError) as caught:
        open_pr(origin, fake_github.api_url, delivery.branch, **overrides)
    assert caught.value.status is ExitStatus.INFRA_FAILURE
    assert f"HTTP {status}: " in caught.value.message
    assert said in caught.value.message
    assert "the branch torchport/tpu is pushed to origin and stays there" in caught.value.message
    assert caught.value.hint
    assert on_origin(origin, delivery.branch) == delivery.head_sha
    assert fake_github.github.pulls(SLUG) == []


def test_unreachable_api_is_infra_and_the_branch_stays(
    origin: Origin, closed_port_url: str
) -> None:
    delivery = deliver(origin.work)
    with pytest.raises(InfraError) as caught:
        open_pr(origin, closed_port_url, delivery.branch)
    assert f"could not reach GitHub at {closed_port_url}" in caught.value.message
    assert "stays there" in caught.value.message
    assert on_origin(origin, delivery.branch) == delivery.head_sha


def test_environment_names() -> None:
    env = github_environment(
        {
            "GITHUB_TOKEN": "a",
            "GH_TOKEN": "b",
            "GITHUB_API_URL": "https://ghe/api/v3",
            "GITHUB_REPOSITORY": "octo/demo",
        }
    )
    assert (env.token, env.api_url, env.repo_slug) == ("b", "https://ghe/api/v3", "octo/demo")
    assert github_environment({"GITHUB_TOKEN": "a"}).token == "a"
    assert github_environment({"GH_TOKEN": ""}).token is None
