"""Live progress for long commands: the current node and a line per completed step (stderr)."""

from types import TracebackType

from rich.console import Console
from rich.status import Status


class LiveProgress:
    """`progress(node, message)` for `agent fix`: a spinner with the current step, plus a log line
    per message; `quiet` shows nothing."""

    def __init__(self, *, quiet: bool = False) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.quiet = quiet
        self._status: Status | None = None

    def __enter__(self) -> "LiveProgress":
        if not self.quiet:
            self._status = self.console.status("starting", spinner="dots")
            self._status.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._status is not None:
            self._status.stop()

    def __call__(self, node: str, message: str) -> None:
        if self.quiet:
            return
        if node == "status":
            if self._status is not None:
                self._status.update(message)
            return
        self.console.print(f"[bold cyan]{node:>9}[/] {message}", markup=True)
        if self._status is not None:
            self._status.update(f"{node}: {message}")
