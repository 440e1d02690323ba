"""The fake GitHub's endpoints: request checks as GitHub makes them (headers, authentication,
JSON shapes per the REST documentation) and the pull-request and label operations."""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.github.testing.fake_state import (
    FakeGitHubState,
    FakePull,
    FakeRepo,
    FakeResponse,
    FakeToken,
    error,
)
from tools.github.testing.fake_views import label_json, pull_json, repo_json
from tools.github.testing.validation import (
    DOCS,
    check_fields,
    invalid_field,
    parse_labels,
    validation_failed,
)

ACCEPTED_MEDIA_TYPES = {
    "application/vnd.github+json",
    "application/vnd.github.v3+json",
    "application/json",
    "*/*",
}
API_VERSIONS = {"2022-11-28", "2026-03-10"}
MAX_BODY, MAX_TITLE = 65_536, 256


@dataclass(frozen=True)
class Call:
    """A request that passed the header and authentication checks, ready for an endpoint."""

    state: FakeGitHubState
    repo: FakeRepo
    token: FakeToken | None
    number: int | None
    query: dict[str, str]
    body: Any
    base_url: str


Endpoint = Callable[[Call], FakeResponse]


def get_repo(call: Call) -> FakeResponse:
    return FakeResponse(200, repo_json(call.repo, call.base_url))


def list_pulls(call: Call) -> FakeResponse:
    state = call.query.get("state", "open")
    if state not in ("open", "closed", "all"):
        return validation_failed(DOCS["list"], invalid_field("PullRequest", "state", state))
    per_page, page = _int_param(call.query, "per_page", 30), _int_param(call.query, "page", 1)
    pulls = [p for p in call.state.pulls.get(call.repo.full_name, []) if state in ("all", p.state)]
    head = call.query.get("head", "")
    if ":" in head:  # GitHub ignores a head filter without the `owner:` part
        owner, ref = head.split(":", 1)
        pulls = [p for p in pulls if owner == call.repo.owner and p.head == ref]
    if "base" in call.query:
        pulls = [p for p in pulls if p.base == call.query["base"]]
    pulls.sort(key=lambda pull: pull.number, reverse=True)
    start = (page - 1) * min(per_page, 100)
    chosen = pulls[start : start + min(per_page, 100)]
    return FakeResponse(200, [pull_json(p, call.base_url) for p in chosen])


def create_pull(call: Call) -> FakeResponse:
    docs = DOCS["create"]
    refused = check_fields(
        call.body,
        {
            "title": str,
            "head": str,
            "head_repo": str,
            "base": str,
            "body": str,
            "maintainer_can_modify": bool,
            "draft": bool,
            "issue": int,
        },
        required=("head", "base"),
        docs=docs,
    )
    if refused:
        return refused
    body = call.body
    if "issue" in body:
        return validation_failed(docs, invalid_field("PullRequest", "issue", body["issue"]))
    head_owner, _, head = body["head"].rpartition(":")
    problems = _pull_problems(call, body, head_owner or call.repo.owner, head)
    if problems:
        return validation_failed(docs, *problems)
    pull = FakePull(
        number=call.state.new_number(call.repo),
        repo=call.repo,
        title=body["title"],
        body=body.get("body", ""),
        head=head,
        base=body["base"],
        draft=body.get("draft", False),
        author=call.token.login if call.token else "",
        maintainer_can_modify=body.get("maintainer_can_modify", False),
    )
    call.state.pulls.setdefault(call.repo.full_name, []).append(pull)
    view = pull_json(pull, call.base_url)
    return FakeResponse(201, view, {"Location": view["url"]})


def get_pull(call: Call) -> FakeResponse:
    pull = _find_pull(call)
    return FakeResponse(200, pull_json(pull, call.base_url)) if pull else _not_found(DOCS["get"])


def update_pull(call: Call) -> FakeResponse:
    docs = DOCS["update"]
    refused = check_fields(
        call.body,
        {"title": str, "body": str, "state": str, "base": str, "maintainer_can_modify": bool},
        required=(),
        docs=docs,
    )
    if refused:
        return refused
    pull = _find_pull(call)
    if pull is None:
        return _not_found(docs)
    body = call.body
    problems = _length_problems(body)
    if body.get("state", "open") not in ("open", "closed"):
        problems.append(invalid_field("PullRequest", "state", body["state"]))
    if "base" in body and call.repo.branch_sha(body["base"]) is None:
        problems.append(invalid_field("PullRequest", "base", body["base"]))
    if problems:
        return validation_failed(docs, *problems)
    for key in ("title", "body", "state", "base", "maintainer_can_modify"):
        if key in body:
            setattr(pull, key, body[key])
    return FakeResponse(200, pull_json(pull, call.base_url))


def list_labels(call: Call) -> FakeResponse:
    pull = _find_pull(call)
    if pull is None:
        return _not_found(DOCS["labels"])
    return FakeResponse(200, [label_json(name, call.repo, call.base_url) for name in pull.labels])


def add_labels(call: Call) -> FakeResponse:
    docs = DOCS["labels"]
    names = parse_labels(call.body, docs)
    if isinstance(names, FakeResponse):
        return names
    pull = _find_pull(call)
    if pull is None:
        return _not_found(docs)
    pull.labels += [name for name in names if name not in pull.labels]
    return list_labels(call)


ROUTES: list[tuple[re.Pattern[str], dict[str, Endpoint]]] = [
    (re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"), {"GET": get_repo}),
    (
        re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls"),
        {"GET": list_pulls, "POST": create_pull},
    ),
    (
        re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls/(?P<number>[0-9]+)"),
        {"GET": get_pull, "PATCH": update_pull},
    ),
    (
        re.compile(r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<number>[0-9]+)/labels"),
        {"GET": list_labels, "POST": add_labels},
    ),
]


def _pull_problems(
    call: Call, body: dict[str, Any], head_owner: str, head: str
) -> list[dict[str, Any]]:
    repo, base = call.repo, body["base"]
    if not body.get("title"):
        return [{"resource": "PullRequest", "code": "missing_field", "field": "title"}]
    problems = _length_problems(body)
    base_sha = repo.branch_sha(base)
    head_sha = repo.branch_sha(head) if head_owner == repo.owner else None
    if base_sha is None:
        problems.append(invalid_field("PullRequest", "base", base))
    if head_sha is None:
        problems.append(invalid_field("PullRequest", "head", body["head"]))
    if problems or base_sha is None or head_sha is None:
        return problems
    if repo.is_ancestor(head_sha, base_sha):
        return [_custom("PullRequest", f"No commits between {base} and {head}")]
    for pull in call.state.pulls.get(repo.full_name, []):
        if pull.state == "open" and pull.head == head and pull.base == base:
            return [
                _custom("PullRequest", f"A pull request already exists for {repo.owner}:{head}.")
            ]
    return []


def _length_problems(body: dict[str, Any]) -> list[dict[str, Any]]:
    problems = []
    if len(body.get("title") or "") > MAX_TITLE:
        problems.append(
            _custom("Issue", f"title is too long (maximum is {MAX_TITLE} characters)", "title")
        )
    if len(body.get("body") or "") > MAX_BODY:
        problems.append(
            _custom("Issue", f"body is too long (maximum is {MAX_BODY} characters)", "body")
        )
    return problems


def _custom(resource: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {
        "resource": resource,
        "code": "custom",
        **({"field": field} if field else {}),
        "message": message,
    }


def _find_pull(call: Call) -> FakePull | None:
    pulls = call.state.pulls.get(call.repo.full_name, [])
    return next((pull for pull in pulls if pull.number == call.number), None)


def _not_found(docs: str) -> FakeResponse:
    return error(404, "Not Found", docs)


def _int_param(query: dict[str, str], name: str, default: int) -> int:
    value = query.get(name, str(default))
    return int(value) if value.isdigit() and int(value) > 0 else default


def decode_json(raw: bytes) -> Any:
    """The JSON body (an empty body counts as `{}`); ValueError when it does not parse."""
    return json.loads(raw) if raw.strip() else {}
