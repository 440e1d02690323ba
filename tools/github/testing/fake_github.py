"""The fake GitHub's front: configure repositories, tokens and failures; answer one request."""

import re
import time
from pathlib import Path
from typing import Any

from tools.github.testing.fake_routes import (
    ACCEPTED_MEDIA_TYPES,
    API_VERSIONS,
    ROUTES,
    Call,
    Endpoint,
    decode_json,
)
from tools.github.testing.fake_state import (
    FakeGitHubState,
    FakePull,
    FakeRepo,
    FakeResponse,
    FakeToken,
    Injection,
    RecordedRequest,
    error,
)

UA_REQUIRED = (
    "Request forbidden by administrative rules. Please make sure your request has a User-Agent "
    "header (https://docs.github.com/rest/overview/resources-in-the-rest-api#user-agent-required)."
)
RATE_LIMIT = 5000


class FakeGitHub:
    """GitHub's pull-request endpoints over in-memory state; `handle` answers one request."""

    def __init__(self) -> None:
        self.state = FakeGitHubState()

    def add_repo(
        self, slug: str, git_dir: Path, *, default_branch: str = "main", private: bool = True
    ) -> FakeRepo:
        """Serve `owner/name`, whose branches are those of the bare repository `git_dir`."""
        owner, name = slug.split("/", 1)
        repo = FakeRepo(owner, name, Path(git_dir), default_branch, private)
        with self.state.lock:
            self.state.repos[slug.lower()] = repo
        return repo

    def add_token(
        self,
        value: str,
        *,
        login: str = "torchport-bot",
        can_write: bool = True,
        repos: set[str] | None = None,
    ) -> None:
        """Accept `value` as a token (read-only when not `can_write`, limited to `repos`)."""
        with self.state.lock:
            self.state.tokens[value] = FakeToken(
                value, login, can_write, frozenset(repos) if repos is not None else None
            )

    def inject(
        self,
        method: str,
        path_pattern: str,
        status: int,
        *,
        message: str = "injected failure",
        payload: Any = None,
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` requests whose method and path (regex, full match) match with
        `status` and GitHub's error shape (or `payload`), before any other check."""
        body = payload if payload is not None else {"message": message, "status": str(status)}
        with self.state.lock:
            self.state.injections.append(
                Injection(method, re.compile(path_pattern), status, body, headers or {}, times)
            )

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request answered so far, oldest first."""
        with self.state.lock:
            return list(self.state.requests)

    def pulls(self, slug: str) -> list[FakePull]:
        """The pull requests of `owner/name`."""
        with self.state.lock:
            repo = self.state.repos.get(slug.lower())
            return list(self.state.pulls.get(repo.full_name, [])) if repo else []

    def handle(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        headers: dict[str, str],
        raw_body: bytes,
        base_url: str,
    ) -> FakeResponse:
        """Answer one request (`headers` with lower-case names) and record it."""
        with self.state.lock:
            body: Any = None
            try:
                body = decode_json(raw_body) if raw_body.strip() else None
            except ValueError:
                body = raw_body.decode("utf-8", errors="replace")
            response = self.state.take_injection(method, path) or self._answer(
                method, path, query, headers, raw_body, base_url
            )
            self.state.requests.append(
                RecordedRequest(method, path, dict(query), dict(headers), body, response.status)
            )
            return _with_rate_headers(response, len(self.state.requests))

    def _answer(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        headers: dict[str, str],
        raw_body: bytes,
        base_url: str,
    ) -> FakeResponse:
        refused = _header_problem(headers)
        token = self.state.tokens.get(_bearer(headers.get("authorization", "")))
        if refused or ("authorization" in headers and token is None):
            return refused or error(401, "Bad credentials")
        endpoint, params = _route(method, path)
        repo = self.state.repos.get(f"{params.get('owner')}/{params.get('repo')}".lower())
        if endpoint is None or repo is None or not _visible(repo, token):
            return error(404, "Not Found")
        if method != "GET":
            if token is None:
                return error(401, "Requires authentication")
            if not token.can_write:
                return error(403, "Resource not accessible by personal access token")
        try:
            body = decode_json(raw_body) if method != "GET" else None
        except ValueError:
            return error(400, "Problems parsing JSON")
        number = int(params["number"]) if params.get("number") else None
        return endpoint(Call(self.state, repo, token, number, query, body, base_url))


def _header_problem(headers: dict[str, str]) -> FakeResponse | None:
    if not headers.get("user-agent"):
        return error(403, UA_REQUIRED)
    accept = headers.get("accept", "")
    media_types = {part.split(";")[0].strip() for part in accept.split(",")}
    if not media_types & ACCEPTED_MEDIA_TYPES:
        return error(
            415, f"Unsupported 'Accept' header: {accept!r}. Must accept 'application/json'."
        )
    version = headers.get("x-github-api-version")
    if version is not None and version not in API_VERSIONS:
        return error(400, f"API version {version} is not supported.")
    return None


def _bearer(authorization: str) -> str:
    """The token of `Bearer T` or `token T` (GitHub accepts both); "" for any other shape."""
    scheme, _, value = authorization.partition(" ")
    return value.strip() if scheme.lower() in ("bearer", "token") else ""


def _route(method: str, path: str) -> tuple[Endpoint | None, dict[str, str]]:
    for pattern, endpoints in ROUTES:
        match = pattern.fullmatch(path)
        if match:
            return endpoints.get(method), match.groupdict()
    return None, {}


def _visible(repo: FakeRepo, token: FakeToken | None) -> bool:
    return (token.sees(repo)) if token else not repo.private


def _with_rate_headers(response: FakeResponse, used: int) -> FakeResponse:
    headers = {
        "x-ratelimit-limit": str(RATE_LIMIT),
        "x-ratelimit-remaining": str(max(0, RATE_LIMIT - used)),
        "x-ratelimit-reset": str(int(time.time()) + 3600),
        "x-ratelimit-used": str(used),
        "x-ratelimit-resource": "core",
        **response.headers,
    }
    return FakeResponse(response.status, response.payload, headers)
