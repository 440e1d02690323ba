"""GitHubClient against the fake GitHub over real HTTP: calls, headers, errors, retries."""

import time

import pytest

from agent.errors import InfraError
from agent.exit_status import ExitStatus
from tests.git.repos import git
from tests.github.conftest import FAST_RETRY, READ_ONLY_TOKEN, SLUG, TOKEN, Origin
from tools.github.client import GitHubClient
from tools.github.errors import GitHubAPIError
from tools.github.testing.fake_server import FakeGitHubServer

PULLS = rf"/repos/{SLUG}/pulls"


@pytest.fixture
def feature(origin: Origin) -> str:
    git(origin.work, "switch", "--quiet", "-c", "feature")
    (origin.work / "f.txt").write_text("f\n")
    git(origin.work, "add", "f.txt")
    git(origin.work, "commit", "--quiet", "-m", "feature")
    git(origin.work, "push", "--quiet", "origin", "feature")
    return "feature"


def test_create_find_update_label(
    client: GitHubClient, fake_github: FakeGitHubServer, feature: str
) -> None:
    assert client.find_open_pr("octo", "demo", feature) is None
    created = client.create_pr("octo", "demo", feature, "main", "Title", "Body", draft=True)
    assert (created.number, created.head, created.base, created.draft) == (1, feature, "main", True)
    assert created.url == f"{fake_github.api_url}/{SLUG}/pull/1"
    found = client.find_open_pr("octo", "demo", feature)
    assert found == created
    updated = client.update_pr("octo", "demo", 1, body="New body")
    assert (updated.body, updated.title) == ("New body", "Title")
    assert client.add_labels("octo", "demo", 1, ["torchport", "migration"]) == [
        "torchport",
        "migration",
    ]
    assert client.default_branch("octo", "demo") == "main"


def test_requests_carry_githubs_recommended_headers(
    client: GitHubClient, fake_github: FakeGitHubServer, feature: str
) -> None:
    client.create_pr("octo", "demo", feature, "main", "T", "B")
    client.find_open_pr("octo", "demo", feature)
    post, get = fake_github.github.requests
    assert post.headers["accept"] == "application/vnd.github+json"
    assert post.headers["authorization"] == f"Bearer {TOKEN}"
    assert post.headers["x-github-api-version"] == "2022-11-28"
    assert post.headers["user-agent"].startswith("torchport")
    assert post.headers["content-type"] == "application/json"
    assert post.body == {"title": "T", "head": feature, "base": "main", "body": "B", "draft": False}
    assert get.query == {"head": f"octo:{feature}", "state": "open", "per_page": "100"}


def test_closed_pull_requests_are_not_found(
    client: GitHubClient, fake_github: FakeGitHubServer, feature: str
) -> None:
    client.create_pr("octo", "demo", feature, "main", "T", "B")
    fake_github.github.pulls(SLUG)[0].state = "closed"
    assert client.find_open_pr("octo", "demo", feature) is None


def test_bad_token_is_401_with_what_to_do(fake_github: FakeGitHubServer, feature: str) -> None:
    client = GitHubClient("ghp_wrong", fake_github.api_url, retry=FAST_RETRY)
    with pytest.raises(GitHubAPIError) as caught:
        client.find_open_pr("octo", "demo", feature)
    assert caught.value.http_status == 401
    assert caught.value.status is ExitStatus.INFRA_FAILURE
    assert "list the pull requests of octo/demo (HTTP 401: Bad credentials)" in caught.value.message
    assert "GITHUB_TOKEN or GH_TOKEN" in (caught.value.hint or "")


def test_read_only_token_is_403_with_scopes(fake_github: FakeGitHubServer, feature: str) -> None:
    client = GitHubClient(READ_ONLY_TOKEN, fake_github.api_url, retry=FAST_RETRY)
    with pytest.raises(GitHubAPIError) as caught:
        client.create_pr("octo", "demo", feature, "main", "T", "B")
    assert caught.value.http_status == 403
    assert "Resource not accessible by personal access token" in caught.value.message
    assert "pull-requests: write" in (caught.value.hint or "")
    assert len(fake_github.github.requests) == 1


def test_unknown_repository_is_404(client: GitHubClient) -> None:
    with pytest.raises(GitHubAPIError) as caught:
        client.create_pr("octo", "nope", "feature", "main", "T", "B")
    assert caught.value.http_status == 404
    assert "GITHUB_API_URL" in (caught.value.hint or "")


def test_validation_failure_is_422_with_githubs_details(client: GitHubClient, feature: str) -> None:
    with pytest.raises(GitHubAPIError) as caught:
        client.create_pr("octo", "demo", feature, "no-such-base", "T", "B")
    assert caught.value.http_status == 422
    assert "Validation Failed: resource=PullRequest field=base code=invalid" in caught.value.message
    assert caught.value.errors[0]["field"] == "base"


def test_connection_refused_is_a_network_error(closed_port_url: str) -> None:
    client = GitHubClient(TOKEN, closed_port_url, retry=FAST_RETRY)
    with pytest.raises(InfraError) as caught:
        client.find_open_pr("octo", "demo", "feature")
    assert f"could not reach GitHub at {closed_port_url}" in caught.value.message
    assert "Connection refused" in caught.value.message
    assert "GITHUB_API_URL" in (caught.value.hint or "")


def test_server_errors_are_retried_then_succeed(
    client: GitHubClient, fake_github: FakeGitHubServer, feature: str
) -> None:
    fake_github.github.inject("POST", PULLS, 502, times=2)
    pull = client.create_pr("octo", "demo", feature, "main", "T", "B")
    assert pull.number == 1
    assert [r.status for r in fake_github.github.requests] == [502, 502, 201]


def test_server_errors_give_up_after_the_last_attempt(
    client: GitHubClient, fake_github: FakeGitHubServer
) -> None:
    fake_github.github.inject("GET", PULLS, 503, message="Service Unavailable", times=5)
    with pytest.raises(GitHubAPIError) as caught:
        client.find_open_pr("octo", "demo", "feature")
    assert caught.value.http_status == 503
    assert "githubstatus" in (caught.value.hint or "")
    assert len(fake_github.github.requests) == FAST_RETRY.max_attempts


def test_rate_limit_waits_for_the_reset_when_it_is_near(
    client: GitHubClient, fake_github: FakeGitHubServer
) -> None:
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()))}
    fake_github.github.inject(
        "GET", PULLS, 403, message="API rate limit exceeded for user ID 1.", headers=reset
    )
    fake_github.github.inject("GET", PULLS, 429, message="slow down", headers={"Retry-After": "0"})
    assert client.find_open_pr("octo", "demo", "feature") is None
    assert [r.status for r in fake_github.github.requests] == [403, 429, 200]


def test_rate_limit_that_resets_later_fails_at_once(
    client: GitHubClient, fake_github: FakeGitHubServer
) -> None:
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 3600)}
    fake_github.github.inject("GET", PULLS, 403, message="API rate limit exceeded", headers=reset)
    with pytest.raises(GitHubAPIError, match="rate limit stopped the request") as caught:
        client.find_open_pr("octo", "demo", "feature")
    assert "resets in 3" in caught.value.message
    assert len(fake_github.github.requests) == 1


def test_a_plain_403_is_not_retried(fake_github: FakeGitHubServer) -> None:
    client = GitHubClient(READ_ONLY_TOKEN, fake_github.api_url, retry=FAST_RETRY)
    with pytest.raises(GitHubAPIError):
        client.update_pr("octo", "demo", 1, body="x")
    assert len(fake_github.github.requests) == 1
