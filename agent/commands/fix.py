"""`agent fix`: migrate a repository to a target and prove parity."""

from pathlib import Path
from typing import Annotated

import typer

from agent.commands.common import existing_dir, not_available
from agent.settings import Target


def fix(
    path: Annotated[Path, typer.Argument(help="The CUDA-first repository to migrate.")],
    target: Annotated[Target, typer.Option(help="Where the code should run.")],
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Rules only; never call a model.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the diff of the codemods; write nothing.")
    ] = False,
) -> None:
    """Migrate a repository to a target and prove parity.

    Scan, plan, edit, run the original and the migrated code in the sandbox, compare their outputs,
    and iterate until parity; the result lands on a new git branch with a report.
    """
    existing_dir(path)
    raise not_available("fix", "the agent issue")
