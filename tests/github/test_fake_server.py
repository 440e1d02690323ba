"""The fake GitHub answers like GitHub, checked with raw HTTP (not torchport's client)."""

import http.client
import json
import os
import subprocess
import sys
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.git.repos import git
from tests.github.conftest import READ_ONLY_TOKEN, SLUG, TOKEN, Origin
from tools.github.testing.fake_server import FakeGitHubServer

GOOD_HEADERS = {
    "Accept": "application/vnd.github+json",
    "Authorization": f"Bearer {TOKEN}",
    "User-Agent": "raw-test",
    "X-GitHub-Api-Version": "2022-11-28",
}
PULLS = f"/repos/{SLUG}/pulls"


def call(
    server: FakeGitHubServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    headers: Mapping[str, str | None] | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any, dict[str, str]]:
    """Status, decoded JSON and headers of one raw request; `None` header values are left out."""
    merged = {**GOOD_HEADERS, **(headers or {})}
    sent = {name: value for name, value in merged.items() if value is not None}
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    host = urllib.parse.urlsplit(server.api_url).netloc
    connection = http.client.HTTPConnection(host, timeout=10)
    connection.putrequest(method, path, skip_accept_encoding=True)
    for name, value in sent.items():
        connection.putheader(name, value)
    connection.putheader("Content-Length", str(len(data or b"")))
    connection.endheaders(data)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    answer = json.loads(payload) if payload else None
    return response.status, answer, {k.lower(): v for k, v in response.getheaders()}


@pytest.fixture
def pushed(origin: Origin) -> str:
    """A branch `feature` with one commit, pushed to the bare origin."""
    git(origin.work, "switch", "--quiet", "-c", "feature")
    (origin.work / "f.txt").write_text("f\n")
    git(origin.work, "add", "f.txt")
    git(origin.work, "commit", "--quiet", "-m", "feature")
    git(origin.work, "push", "--quiet", "origin", "feature")
    return "feature"


def create_body(head: str = "feature", **extra: Any) -> dict[str, Any]:
    return {"title": "T", "head": head, "base": "main", "body": "B", **extra}


def test_create_list_update_label_round_trip(fake_github: FakeGitHubServer, pushed: str) -> None:
    status, pull, headers = call(fake_github, "POST", PULLS, create_body())
    assert status == 201
    assert pull["number"] == 1
    assert pull["head"]["ref"] == "feature"
    assert pull["head"]["label"] == "octo:feature"
    assert pull["html_url"] == f"{fake_github.api_url}/{SLUG}/pull/1"
    assert headers["location"] == f"{fake_github.api_url}/repos/{SLUG}/pulls/1"
    assert headers["x-ratelimit-remaining"] == "4999"
    status, listed, _ = call(fake_github, "GET", f"{PULLS}?head=octo:feature&state=open")
    assert (status, [p["number"] for p in listed]) == (200, [1])
    status, updated, _ = call(fake_github, "PATCH", f"{PULLS}/1", {"body": "new"})
    assert (status, updated["body"], updated["title"]) == (200, "new", "T")
    status, labels, _ = call(fake_github, "POST", f"/repos/{SLUG}/issues/1/labels", ["a"])
    assert (status, [label["name"] for label in labels]) == (200, ["a"])
    call(fake_github, "POST", f"/repos/{SLUG}/issues/1/labels", {"labels": [{"name": "b"}, "a"]})
    assert fake_github.github.pulls(SLUG)[0].labels == ["a", "b"]
    assert [r.status for r in fake_github.github.requests] == [201, 200, 200, 200, 200]


def test_head_filter_needs_the_owner_as_on_github(
    fake_github: FakeGitHubServer, pushed: str
) -> None:
    call(fake_github, "POST", PULLS, create_body())
    assert len(call(fake_github, "GET", f"{PULLS}?head=other:feature")[1]) == 0
    assert len(call(fake_github, "GET", f"{PULLS}?head=nomatch")[1]) == 1  # ignored filter
    assert call(fake_github, "GET", f"{PULLS}?state=sideways")[0] == 422


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({"User-Agent": None}, 403, "User-Agent header"),
        ({"Accept": "text/html"}, 415, "Unsupported 'Accept' header"),
        ({"Accept": None}, 415, "Unsupported 'Accept' header"),
        ({"X-GitHub-Api-Version": "1999-01-01"}, 400, "API version 1999-01-01"),
        ({"Authorization": "Bearer wrong"}, 401, "Bad credentials"),
        ({"Authorization": "Basic abc"}, 401, "Bad credentials"),
        ({"Authorization": None}, 404, "Not Found"),  # private repository, anonymous
        ({"Authorization": f"Bearer {READ_ONLY_TOKEN}"}, 403, "Resource not accessible"),
    ],
)
def test_headers_and_authentication(
    fake_github: FakeGitHubServer,
    pushed: str,
    headers: dict[str, str | None],
    status: int,
    message: str,
) -> None:
    answer_status, answer, _ = call(fake_github, "POST", PULLS, create_body(), headers=headers)
    assert answer_status == status
    assert message in answer["message"]
    assert answer["documentation_url"].startswith("https://docs.github.com/rest")
    assert fake_github.github.pulls(SLUG) == []


def test_token_scheme_and_anonymous_writes(fake_github: FakeGitHubServer, origin: Origin) -> None:
    auth = {"Authorization": f"token {TOKEN}"}
    assert call(fake_github, "GET", f"/repos/{SLUG}", headers=auth)[1]["default_branch"] == "main"
    fake_github.github.add_repo("octo/public", origin.bare, private=False)
    anonymous = {"Authorization": None}
    assert call(fake_github, "GET", "/repos/octo/public", headers=anonymous)[0] == 200
    status, answer, _ = call(fake_github, "POST", "/repos/octo/public/pulls", {}, headers=anonymous)
    assert (status, answer["message"]) == (401, "Requires authentication")


def test_token_limited_to_other_repositories_sees_404(fake_github: FakeGitHubServer) -> None:
    fake_github.github.add_token("narrow", repos={"octo/other"})
    status, _, _ = call(
        fake_github, "GET", f"/repos/{SLUG}", headers={"Authorization": "Bearer narrow"}
    )
    assert status == 404


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, 'Invalid request.\n\n"head", "base" weren\'t supplied.'),
        ({"head": "feature"}, 'Invalid request.\n\n"base" wasn\'t supplied.'),
        (create_body(draft="yes"), "For 'properties/draft', \"yes\" is not a boolean."),
        (create_body(title=None), "For 'properties/title', nil is not a string."),
        (create_body(issue=True), "For 'properties/issue', true is not a integer."),
        ([1, 2], "[1, 2] is not an object."),
    ],
)
def test_create_shape_errors(
    fake_github: FakeGitHubServer, pushed: str, body: Any, message: str
) -> None:
    status, answer, _ = call(fake_github, "POST", PULLS, body)
    assert status == 422
    assert message in answer["message"]


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (create_body(base="nope"), {"field": "base", "code": "invalid"}),
        (create_body(head="missing"), {"field": "head", "code": "invalid"}),
        (create_body(head="stranger:feature"), {"field": "head", "code": "invalid"}),
        (create_body(title=""), {"field": "title", "code": "missing_field"}),
        (create_body(head="main"), {"message": "No commits between main and main"}),
        (
            create_body(body="x" * 65_537),
            {"message": "body is too long (maximum is 65536 characters)"},
        ),
    ],
)
def test_create_validation_errors(
    fake_github: FakeGitHubServer, pushed: str, body: dict[str, Any], error: dict[str, str]
) -> None:
    status, answer, _ = call(fake_github, "POST", PULLS, body)
    assert (status, answer["message"]) == (422, "Validation Failed")
    assert answer["status"] == "422"
    assert any(error.items() <= problem.items() for problem in answer["errors"])


def test_duplicate_pull_request_is_refused(fake_github: FakeGitHubServer, pushed: str) -> None:
    assert call(fake_github, "POST", PULLS, create_body(head="octo:feature"))[0] == 201
    status, answer, _ = call(fake_github, "POST", PULLS, create_body())
    assert status == 422
    assert answer["errors"][0]["message"] == "A pull request already exists for octo:feature."


def test_update_and_label_errors(fake_github: FakeGitHubServer, pushed: str) -> None:
    assert call(fake_github, "PATCH", f"{PULLS}/9", {"body": "x"})[0] == 404
    call(fake_github, "POST", PULLS, create_body())
    assert call(fake_github, "PATCH", f"{PULLS}/1", {"state": "merged"})[0] == 422
    assert call(fake_github, "PATCH", f"{PULLS}/1", {"body": 5})[0] == 422
    labels = f"/repos/{SLUG}/issues/1/labels"
    assert call(fake_github, "POST", labels, {"labels": []})[0] == 422
    assert call(fake_github, "POST", labels, {"labels": ["x" * 51]})[0] == 422
    assert call(fake_github, "POST", f"/repos/{SLUG}/issues/7/labels", ["a"])[0] == 404
    assert (
        call(fake_github, "POST", PULLS, raw=b"{not json")[1]["message"] == "Problems parsing JSON"
    )


def test_injected_failures_come_first_and_run_out(fake_github: FakeGitHubServer) -> None:
    fake_github.github.inject("GET", f"/repos/{SLUG}", 503, message="unavailable", times=2)
    assert call(fake_github, "GET", f"/repos/{SLUG}")[0] == 503
    assert call(fake_github, "GET", f"/repos/{SLUG}")[0] == 503
    assert call(fake_github, "GET", f"/repos/{SLUG}")[0] == 200
    recorded = fake_github.github.requests[0]
    assert (recorded.method, recorded.path, recorded.status) == ("GET", f"/repos/{SLUG}", 503)
    assert recorded.headers["authorization"] == f"Bearer {TOKEN}"


def test_module_entry_point_serves_until_stopped(origin: Origin) -> None:
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tools.github.testing.fake_server",
            "--repo",
            f"{SLUG}={origin.bare}",
            "--token",
            TOKEN,
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    try:
        assert process.stdout is not None
        api_url = process.stdout.readline().strip()
        assert api_url.startswith("http://127.0.0.1:")
        conn = http.client.HTTPConnection(urllib.parse.urlsplit(api_url).netloc, timeout=10)
        conn.request("GET", f"/repos/{SLUG}", headers=GOOD_HEADERS)
        response = conn.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["full_name"] == SLUG
        conn.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
