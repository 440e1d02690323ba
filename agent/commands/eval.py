"""`agent eval`: the evaluation harness over the benchmark suite."""

from pathlib import Path
from typing import Annotated

import typer

from agent.commands.common import not_available


def evaluate(
    suite: Annotated[Path | None, typer.Option(help="Folder of benchmark cases.")] = None,
) -> None:
    """Measure torchport over a suite of benchmark repositories.

    Runs `agent fix` on every case and reports verdicts, iterations, times, tokens and what rules
    vs the LLM fixed, as JSON, markdown and a chart.
    """
    raise not_available("eval", "the evaluation issue")
