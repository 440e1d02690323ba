"""HTTP to the GitHub REST API with the standard library: JSON in and out, the recommended
headers, and a small bounded retry on rate limits, server errors and dropped connections."""

import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from http.client import HTTPException
from typing import Any

from agent.log import get_logger
from tools.github.errors import network_error, rate_limit_error, response_error

log: logging.Logger = get_logger(__name__)

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
MEDIA_TYPE = "application/vnd.github+json"
USER_AGENT = "torchport"
RETRIED_STATUSES = frozenset({500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry: attempts in all, base of the exponential backoff, and
    the longest single wait accepted (a rate limit that resets later fails at once)."""

    max_attempts: int = 3
    backoff_s: float = 1.0
    max_wait_s: float = 60.0


DEFAULT_RETRY = RetryPolicy()


class Transport:
    """Authenticated JSON requests to one GitHub API base URL."""

    def __init__(
        self, token: str, api_url: str, timeout_s: float, retry: RetryPolicy = DEFAULT_RETRY
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.timeout_s = timeout_s
        self.retry = retry
        self._headers = {
            "Accept": MEDIA_TYPE,
            "Authorization": f"Bearer {token}",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": USER_AGENT,
        }

    def request(
        self,
        method: str,
        path: str,
        *,
        action: str,
        query: Mapping[str, str] | None = None,
        payload: Any = None,
    ) -> Any:
        """The decoded JSON answer of `method path`; GitHubAPIError naming `action` on failure."""
        url = self.api_url + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = None if payload is None else json.dumps(payload).encode()
        headers = {**self._headers, **({"Content-Type": "application/json"} if data else {})}
        for attempt in range(1, self.retry.max_attempts + 1):
            last = attempt == self.retry.max_attempts
            http_request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(http_request, timeout=self.timeout_s) as response:
                    log.debug("%s %s -> %s", method, path, response.status)
                    body = response.read()
                return _decode_success(body, action, self.api_url)
            except urllib.error.HTTPError as exc:
                answer = _decode_error(exc)
                wait = self._wait_before_retry(exc.code, exc.headers, answer, attempt)
                log.debug("%s %s -> %s (retry in %s s)", method, path, exc.code, wait)
                if wait is None or last:
                    raise self._final_error(action, exc.code, exc.headers, answer) from None
            except (urllib.error.URLError, HTTPException, OSError) as exc:
                reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                if last:
                    raise network_error(action, self.api_url, reason) from None
                wait = self._backoff(attempt)
                log.debug("%s %s failed: %s (retry in %s s)", method, path, reason, wait)
            time.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _wait_before_retry(
        self, status: int, headers: Message, answer: Any, attempt: int
    ) -> float | None:
        """Seconds to wait before retrying this answer, or None when it must not be retried."""
        if status in RETRIED_STATUSES:
            return _first(_retry_after(headers), self._backoff(attempt))
        if not _is_rate_limited(status, headers, answer):
            return None
        wait = _first(_retry_after(headers), _until_reset(headers), self._backoff(attempt))
        return wait if wait <= self.retry.max_wait_s else None

    def _final_error(self, action: str, status: int, headers: Message, answer: Any) -> Exception:
        if _is_rate_limited(status, headers, answer):
            wait = _first(_retry_after(headers), _until_reset(headers), 0.0)
            if wait > self.retry.max_wait_s:
                return rate_limit_error(action, status, wait)
        return response_error(action, status, answer)

    def _backoff(self, attempt: int) -> float:
        return float(min(self.retry.backoff_s * 2 ** (attempt - 1), self.retry.max_wait_s))


def _first(*waits: float | None) -> float:
    """The first wait that is known (a `Retry-After: 0` counts)."""
    return next(wait for wait in waits if wait is not None)


def _is_rate_limited(status: int, headers: Message, answer: Any) -> bool:
    if status == 429:
        return True
    message = str(answer.get("message", "")) if isinstance(answer, dict) else ""
    return status == 403 and (
        headers.get("x-ratelimit-remaining") == "0" or "rate limit" in message.lower()
    )


def _retry_after(headers: Message) -> float | None:
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _until_reset(headers: Message) -> float | None:
    if headers.get("x-ratelimit-remaining") != "0" or headers.get("x-ratelimit-reset") is None:
        return None
    try:
        return max(0.0, float(headers["x-ratelimit-reset"]) - time.time())
    except ValueError:
        return None


def _decode(body: bytes) -> Any:
    return json.loads(body) if body.strip() else None


def _decode_success(body: bytes, action: str, api_url: str) -> Any:
    try:
        return _decode(body)
    except ValueError:
        raise network_error(action, api_url, f"the answer is not JSON: {body[:120]!r}") from None


def _decode_error(exc: urllib.error.HTTPError) -> Any:
    body = exc.read()
    try:
        return _decode(body)
    except ValueError:
        return {"message": body.decode("utf-8", errors="replace")[:300]}
