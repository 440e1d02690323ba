"""`agent rules`: list the rule catalogue or explain one rule."""

from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from agent.commands.common import print_json, stdout
from agent.settings import Target
from tools.rules import Rule, all_rules, get_rule


def rules(
    code: Annotated[str | None, typer.Argument(help="A rule code such as TP001.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rule(s) as JSON.")] = False,
) -> None:
    """List the lock-in rules, or explain one.

    The list shows each rule's code, category, effort and codemods per target; with a CODE, the
    rule's explanation and a before/after example.
    """
    if code is None:
        catalogue = all_rules()
        if as_json:
            print_json([rule.to_dict() for rule in catalogue])
        else:
            _list(catalogue, stdout())
        return
    rule = get_rule(code)
    if as_json:
        print_json(rule.to_dict())
    else:
        _explain(rule, stdout())


def _codemods(rule: Rule) -> str:
    """`tpu neuron agnostic` with a mark each: codemod, manual, or does not matter."""
    return "  ".join(f"{target.value} {_mark(rule, target)}" for target in Target)


def _mark(rule: Rule, target: Target) -> str:
    return "✓" if target in rule.codemods else "·" if target in rule.targets else "-"


def _list(catalogue: list[Rule], console: Console) -> None:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in ("code", "category", "effort", "tpu", "neu", "agn", "message"):
        table.add_column(column, no_wrap=column != "message")
    for rule in catalogue:
        marks = [_mark(rule, target) for target in Target]
        table.add_row(rule.code, rule.category.value, rule.effort.value, *marks, rule.message)
    console.print(table)
    console.print(
        f"{len(catalogue)} rules. tpu/neu(ron)/agn(ostic): ✓ codemod, · manual, - does not "
        "matter there. `agent rules CODE` explains one."
    )


def _explain(rule: Rule, console: Console) -> None:
    console.print(f"[bold]{rule.code} {rule.name}[/bold]  ({rule.category.value})")
    console.print(rule.message)
    console.print()
    console.print(rule.explanation)
    console.print()
    matters = ", ".join(sorted(target.value for target in rule.targets))
    console.print(f"matters for: {matters}")
    console.print(f"codemods:    {_codemods(rule)}")
    console.print(f"effort:      {rule.effort.value} (when no codemod applies)")
    console.print(f"severity:    {rule.severity.value}")
    if rule.fix_together:
        console.print(f"fixed with:  {', '.join(sorted(rule.fix_together))}")
    console.print("\n[bold]before[/bold]")
    console.print(Syntax(rule.before, "python", theme="ansi_dark", background_color="default"))
    if rule.after:
        console.print("[bold]after[/bold]")
        console.print(Syntax(rule.after, "python", theme="ansi_dark", background_color="default"))
