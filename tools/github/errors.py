"""GitHub failures as InfraError, each saying what GitHub answered and what to do about it."""

from collections.abc import Mapping, Sequence
from typing import Any, Self

from agent.errors import InfraError

TOKEN_HINT = (
    "the token needs write access to contents and pull requests: a classic token with the `repo` "
    "scope, a fine-grained token with 'Contents' and 'Pull requests: Read and write', or in "
    "GitHub Actions `permissions: {contents: write, pull-requests: write}` (and the repository "
    "setting 'Allow GitHub Actions to create and approve pull requests')"
)
_HINTS = {
    401: "set GITHUB_TOKEN or GH_TOKEN to a valid, unexpired token",
    403: TOKEN_HINT,
    404: (
        "check the repository (owner/name from the remote URL, --repo or GITHUB_REPOSITORY), "
        "GITHUB_API_URL for GitHub Enterprise (https://HOST/api/v3), and that the token can see "
        "the repository: GitHub answers 404 for a private repository the token cannot read"
    ),
    422: "check that the base branch exists on GitHub and that the branch has commits it lacks",
}
_SERVER_HINT = "GitHub may be having trouble (https://www.githubstatus.com); rerun later"


class GitHubAPIError(InfraError):
    """A GitHub REST call that failed: `http_status` (None for network errors), GitHub's words."""

    def __init__(
        self,
        message: str,
        *,
        hint: str | None,
        status: int | None = None,
        github_message: str | None = None,
        errors: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message, hint=hint)
        self.http_status = status
        self.github_message = github_message
        self.errors = list(errors)

    @property
    def pull_request_exists(self) -> bool:
        """Whether GitHub refused to create a pull request because one is open for the head."""
        return self.http_status == 422 and any(
            "pull request already exists" in str(error.get("message", "")).lower()
            for error in self.errors
        )

    def with_context(self, context: str) -> Self:
        """The same error with `context` appended to its message."""
        return type(self)(
            f"{self.message}; {context}",
            hint=self.hint,
            status=self.http_status,
            github_message=self.github_message,
            errors=self.errors,
        )


def response_error(action: str, status: int, payload: Any) -> GitHubAPIError:
    """The error for an HTTP error answer to `action` ("create a pull request in o/r")."""
    said = payload.get("message") if isinstance(payload, dict) else None
    errors = payload.get("errors", []) if isinstance(payload, dict) else []
    details = "; ".join(_describe(error) for error in errors if isinstance(error, dict))
    github_words = ": ".join(str(part) for part in (said, details) if part) or "no message"
    hint = _HINTS.get(status) or (_SERVER_HINT if status >= 500 else None)
    return GitHubAPIError(
        f"GitHub refused to {action} (HTTP {status}: {github_words})",
        hint=hint,
        status=status,
        github_message=str(said) if said else None,
        errors=[error for error in errors if isinstance(error, dict)],
    )


def rate_limit_error(action: str, status: int, wait_s: float) -> GitHubAPIError:
    """The error when GitHub's rate limit would make us wait longer than we are allowed to."""
    return GitHubAPIError(
        f"GitHub's rate limit stopped the request to {action} (HTTP {status}); it resets in "
        f"{wait_s:.0f} s",
        hint="rerun after the reset, or use a token with a higher rate limit",
        status=status,
    )


def network_error(action: str, api_url: str, reason: object) -> GitHubAPIError:
    """The error when GitHub's API cannot be reached at all."""
    return GitHubAPIError(
        f"could not reach GitHub at {api_url} to {action}: {reason}",
        hint="check the network connection and GITHUB_API_URL (GitHub Enterprise: "
        "https://HOST/api/v3)",
    )


def _describe(error: Mapping[str, Any]) -> str:
    if error.get("message"):
        return str(error["message"])
    parts = [f"{key}={error[key]}" for key in ("resource", "field", "code") if key in error]
    return " ".join(parts)
