"""`agent fix`: migrate a repository to a target and prove parity."""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer

from agent.commands.common import existing_dir, not_available, state_of
from agent.log import get_logger
from agent.settings import Target, load_settings
from tools.codemods import preview

log = get_logger(__name__)


def fix(
    ctx: typer.Context,
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
    root = existing_dir(path)
    if no_llm and dry_run:
        show_codemod_diff(root, target, state_of(ctx).env)
        return
    raise not_available("fix", "the agent issue")


def show_codemod_diff(root: Path, target: Target, env: Mapping[str, str]) -> None:
    """`--no-llm --dry-run`: print the unified diff of every codemod for `target`."""
    settings = load_settings(root, env=env)
    result = preview(root, target, ignore=settings.scan.ignore)
    if result.diff:
        typer.echo(result.diff, nl=False)
    log.info(
        "%d codemod fix(es) in %d file(s) for %s; %d finding(s) left for the agent or a person",
        result.fixes,
        len(result.migrations),
        target.value,
        len(result.manual),
    )
