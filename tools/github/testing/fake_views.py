"""JSON views of the fake's objects, with the fields GitHub's REST API returns."""

import zlib
from typing import Any

from tools.github.testing.fake_state import FakePull, FakeRepo


def repo_json(repo: FakeRepo, base_url: str) -> dict[str, Any]:
    """A repository object (GET /repos/{owner}/{repo})."""
    return {
        "id": zlib.crc32(repo.full_name.encode()),
        "name": repo.name,
        "full_name": repo.full_name,
        "owner": {"login": repo.owner, "type": "Organization"},
        "private": repo.private,
        "html_url": f"{base_url}/{repo.full_name}",
        "url": f"{base_url}/repos/{repo.full_name}",
        "default_branch": repo.default_branch,
    }


def pull_json(pull: FakePull, base_url: str) -> dict[str, Any]:
    """A pull-request object as the pulls endpoints return it."""
    repo = pull.repo
    api = f"{base_url}/repos/{repo.full_name}"
    return {
        "url": f"{api}/pulls/{pull.number}",
        "id": 1000 + pull.number,
        "node_id": f"PR_fake{pull.number}",
        "html_url": f"{base_url}/{repo.full_name}/pull/{pull.number}",
        "issue_url": f"{api}/issues/{pull.number}",
        "number": pull.number,
        "state": pull.state,
        "locked": False,
        "title": pull.title,
        "body": pull.body,
        "draft": pull.draft,
        "user": {"login": pull.author, "type": "User"},
        "labels": [label_json(name, repo, base_url) for name in pull.labels],
        "created_at": pull.created_at,
        "head": _ref_json(repo, pull.head, base_url),
        "base": _ref_json(repo, pull.base, base_url),
        "merged": False,
        "maintainer_can_modify": pull.maintainer_can_modify,
    }


def label_json(name: str, repo: FakeRepo, base_url: str) -> dict[str, Any]:
    """A label object."""
    return {
        "id": zlib.crc32(f"{repo.full_name}:{name}".encode()),
        "node_id": f"LA_{name}",
        "url": f"{base_url}/repos/{repo.full_name}/labels/{name}",
        "name": name,
        "description": None,
        "color": "ededed",
        "default": False,
    }


def _ref_json(repo: FakeRepo, branch: str, base_url: str) -> dict[str, Any]:
    return {
        "label": f"{repo.owner}:{branch}",
        "ref": branch,
        "sha": repo.branch_sha(branch) or "",
        "repo": repo_json(repo, base_url),
    }
