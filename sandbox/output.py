"""Bounded capture of a sandboxed program's output.

A program may print gigabytes; the sandbox keeps the first half of the cap and the last half (the
end holds the traceback) and counts what it dropped in between, so memory stays bounded however
much arrives. The dropped part is replaced by a one-line marker.
"""

from collections import deque

TRUNCATION_MARKER = "[torchport sandbox: {dropped} bytes of {stream} dropped here (output cap)]"


class CappedOutput:
    """Collects one stream chunk by chunk, holding at most `cap_bytes` of it."""

    def __init__(self, stream: str, cap_bytes: int) -> None:
        self.stream = stream
        self._head_cap = cap_bytes // 2
        self._tail_cap = cap_bytes - self._head_cap
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self.dropped = 0

    @property
    def truncated(self) -> bool:
        """Some bytes were dropped."""
        return self.dropped > 0

    def write(self, chunk: bytes) -> None:
        """Add the next chunk of the stream."""
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self._tail.append(chunk)
        self._tail_size += len(chunk)
        self._shrink_tail()

    def _shrink_tail(self) -> None:
        while self._tail_size > self._tail_cap:
            excess = self._tail_size - self._tail_cap
            oldest = self._tail[0]
            if len(oldest) <= excess:
                self._tail.popleft()
                self._tail_size -= len(oldest)
                self.dropped += len(oldest)
            else:
                self._tail[0] = oldest[excess:]
                self._tail_size -= excess
                self.dropped += excess

    def text(self) -> str:
        """What was kept, decoded (bad UTF-8 replaced), with a marker where bytes were dropped."""
        head = self._head.decode("utf-8", errors="replace")
        tail = b"".join(self._tail).decode("utf-8", errors="replace")
        if not self.truncated:
            return head + tail
        marker = TRUNCATION_MARKER.format(dropped=self.dropped, stream=self.stream)
        separator = "" if head.endswith("\n") or not head else "\n"
        return f"{head}{separator}{marker}\n{tail}"
