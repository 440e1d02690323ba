"""A scripted OpenAI-compatible server: real sockets, `/v1/chat/completions` with tool calls.

Tests (and demos without a model) start it with a script, one entry per request: a reply (text
and/or tool calls), an HTTP fault (429 with Retry-After, 500, ...), a delay longer than the
client's timeout, or a malformed body. The real `openai` client talks to it over HTTP.
"""

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """An assistant message: optional text and tool calls `(name, arguments)`."""

    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    completion_tokens: int = 20


@dataclass(frozen=True)
class Fault:
    """An HTTP error response (`status`), optionally with a Retry-After header."""

    status: int
    message: str = "scripted failure"
    retry_after: float | None = None


@dataclass(frozen=True)
class Delay:
    """Wait `seconds` before answering with `then` (to trip the client's timeout)."""

    seconds: float
    then: "Reply | Fault"


@dataclass(frozen=True)
class Malformed:
    """A 200 response whose body is not valid JSON."""

    body: str = '{"choices": [ this is not json'


Turn = Reply | Fault | Delay | Malformed
Script = list[Turn | Callable[[dict[str, Any]], Turn]]


class ScriptedOpenAIServer:
    """Serve `script` in order; requests beyond it get HTTP 400 "script exhausted"."""

    def __init__(self, script: Script, *, model: str = "scripted-model") -> None:
        self.script = list(script)
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The `/v1` URL to give the client."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> "ScriptedOpenAIServer":
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "ScriptedOpenAIServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_turn(self, request: dict[str, Any]) -> Turn:
        with self._lock:
            self.requests.append(request)
            if not self.script:
                return Fault(400, "script exhausted: the test expected fewer model calls")
            entry = self.script.pop(0)
        return entry(request) if callable(entry) else entry

    def completion_body(self, reply: Reply, request: dict[str, Any]) -> dict[str, Any]:
        """The JSON of a chat.completion for `reply`."""
        calls = [
            {
                "id": f"call_{next(self._ids)}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for name, args in reply.tool_calls
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if calls:
            message["tool_calls"] = calls
        prompt_tokens = len(json.dumps(request.get("messages", []))) // 4
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": prompt_tokens + reply.completion_tokens,
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return  # keep test output clean

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    request = json.loads(body)
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "request body is not JSON"}})
                    return
                self._answer(server._next_turn(request), request)

            def _answer(self, turn: Turn, request: dict[str, Any]) -> None:
                if isinstance(turn, Delay):
                    time.sleep(turn.seconds)
                    turn = turn.then
                if isinstance(turn, Malformed):
                    self._send_raw(200, turn.body.encode())
                elif isinstance(turn, Fault):
                    headers = {"retry-after": str(turn.retry_after)} if turn.retry_after else {}
                    error = {"message": turn.message, "type": "scripted", "code": turn.status}
                    self._send(turn.status, {"error": error}, headers)
                else:
                    self._send(200, server.completion_body(turn, request))

            def _send(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                self._send_raw(status, json.dumps(data).encode(), headers)

            def _send_raw(
                self, status: int, payload: bytes, headers: dict[str, str] | None = None
            ) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (timeout test)

        return Handler
