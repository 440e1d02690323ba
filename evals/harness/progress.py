"""The eval's progress on stderr: a rich progress bar over (case, target) pairs, and a line per
pair as it finishes or is skipped."""

import threading
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from evals.harness.results import CaseResult

STYLES = {"pass": "green", "fail": "red", "timeout": "yellow", "crash": "magenta", "infra": "dim"}


class EvalProgress:
    """`finished(result)` / `skipped(key)` from any thread; `quiet` shows nothing."""

    def __init__(self, total: int, *, quiet: bool = False) -> None:
        self.console = Console(stderr=True, highlight=False)
        self.quiet = quiet
        self._lock = threading.Lock()
        self._progress = Progress(
            TextColumn("[bold]eval[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=self.console,
            disable=quiet,
        )
        self._task = self._progress.add_task("", total=total)

    def __enter__(self) -> "EvalProgress":
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def skipped(self, key: str, outcome: str) -> None:
        """A pair finished by an earlier run of this eval (its result is kept)."""
        with self._lock:
            self._progress.advance(self._task)
            self._line(f"{key}: {outcome}, finished earlier in this run folder: skipped", "dim")

    def finished(self, result: CaseResult) -> None:
        """A pair has its result."""
        with self._lock:
            self._progress.update(self._task, advance=1, description=f"last: {result.key}")
            seconds = "" if result.wall_s is None else f" in {result.wall_s:.0f}s"
            verdict = result.verdict or "no verdict"
            text = (
                f"{result.key}: {result.outcome} ({verdict}, expected {result.expected}){seconds}"
            )
            if result.outcome != "pass" and result.detail:
                text += f" — {result.detail}"
            self._line(text, STYLES[result.outcome])

    def _line(self, text: str, style: str) -> None:
        if not self.quiet:
            self.console.print(text, style=style, markup=False)
