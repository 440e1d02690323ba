"""The fake GitHub over real HTTP: a threaded `http.server` on 127.0.0.1.

In tests:
    with FakeGitHubServer() as server:
        server.github.add_repo("octo/demo", bare_repo_path)
        server.github.add_token("t0ken")
        ...  # point GitHubClient / open_or_update_pr at server.api_url

From a shell (a demo): `python -m tools.github.testing.fake_server --repo octo/demo=/path/bare.git
--token t0ken [--port 8765]` prints the API URL, then serves until interrupted.
"""

import argparse
import json
import logging
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Self

from agent.log import get_logger
from tools.github.testing.fake_github import FakeGitHub

log: logging.Logger = get_logger(__name__)

POLL_INTERVAL_S = 0.05
"""How often the serving thread checks for `stop()` (the stdlib default, 0.5 s, slows tests)."""


class _Handler(BaseHTTPRequestHandler):
    """Hands every request to the server's FakeGitHub and writes its JSON answer."""

    server: "_Server"
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def do_PATCH(self) -> None:
        self._answer()

    def do_PUT(self) -> None:
        self._answer()

    def do_DELETE(self) -> None:
        self._answer()

    def _answer(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        headers = {name.lower(): value for name, value in self.headers.items()}
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        response = self.server.github.handle(
            self.command, url.path, query, headers, raw, self.server.base_url
        )
        body = b"" if response.payload is None else json.dumps(response.payload).encode()
        self.send_response(response.status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        log.debug("fake GitHub: " + format, *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    github: FakeGitHub
    base_url: str


class FakeGitHubServer:
    """A FakeGitHub listening on 127.0.0.1 (`port` 0: any free port) in a background thread."""

    def __init__(self, github: FakeGitHub | None = None, *, port: int = 0) -> None:
        self.github = github or FakeGitHub()
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def api_url(self) -> str:
        """The API base URL to give GitHubClient (like https://api.github.com)."""
        if self._server is None:
            raise RuntimeError("the fake GitHub server is not started")
        return self._server.base_url

    def start(self) -> Self:
        """Bind and serve in a daemon thread."""
        server = _Server(("127.0.0.1", self._port), _Handler)
        server.github = self.github
        server.base_url = f"http://127.0.0.1:{server.server_address[1]}"
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, args=(POLL_INTERVAL_S,), name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve a fake GitHub until interrupted (for demos); prints the API URL on stdout."""
    parser = argparse.ArgumentParser(description="A local fake of GitHub's pull-request API.")
    parser.add_argument("--repo", action="append", default=[], help="OWNER/NAME=BARE_GIT_DIR")
    parser.add_argument("--token", action="append", default=[], help="a token to accept")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = FakeGitHubServer(port=args.port)
    for spec in args.repo:
        slug, _, git_dir = spec.partition("=")
        server.github.add_repo(slug, Path(git_dir))
    for token in args.token:
        server.github.add_token(token)
    with server:
        sys.stdout.write(f"{server.api_url}\n")
        sys.stdout.flush()
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
