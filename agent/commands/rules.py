"""`agent rules`: list the rule catalogue or explain one rule."""

from typing import Annotated

import typer

from agent.commands.common import not_available


def rules(
    code: Annotated[str | None, typer.Argument(help="A rule code such as TP001.")] = None,
) -> None:
    """List the lock-in rules, or explain one.

    The list shows each rule's code, category, effort and codemods per target; with a CODE, the
    rule's explanation and a before/after example.
    """
    raise not_available("rules", "the scanner issue")
