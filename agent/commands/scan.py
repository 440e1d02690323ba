"""`agent scan`: the CUDA lock-in linter."""

from pathlib import Path
from typing import Annotated, Literal

import typer

from agent.commands.common import existing_dir, not_available
from agent.settings import Target


def scan(
    path: Annotated[Path, typer.Argument(help="Repository or folder to scan.")],
    target: Annotated[
        Target, typer.Option(help="Target the findings are judged for.")
    ] = Target.AGNOSTIC,
    output_format: Annotated[str, typer.Option("--format", help="table, json or sarif.")] = "table",
    output: Annotated[Path | None, typer.Option(help="Write the report to this file.")] = None,
    fail_on: Annotated[
        str | None,
        typer.Option(help="Exit non-zero when a finding of this effort or worse exists."),
    ] = None,
) -> None:
    """Find CUDA lock-in in a repository and report it with rule codes.

    Every site (device strings, torch.cuda calls, AMP and GradScaler, NCCL, Triton kernels,
    CUDA-only libraries, float64, ...) is listed with its rule code, effort, and whether a codemod
    fixes it for the target.
    """
    existing_dir(path)
    raise not_available("scan", "the scanner issue")


FORMATS: tuple[Literal["table", "json", "sarif"], ...] = ("table", "json", "sarif")
