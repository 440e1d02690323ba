"""The human report: one table per file with the code line of each finding, then a summary."""

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tools.rules import Effort
from tools.scanner.findings import Finding
from tools.scanner.inventory import Inventory

EFFORT_STYLES = {
    Effort.NONE: "green",
    Effort.LOW: "yellow",
    Effort.MEDIUM: "dark_orange",
    Effort.HIGH: "red",
}


def render_table(inventory: Inventory, console: Console) -> None:
    """Print the findings grouped by file, each with its rule, effort, fixability and code."""
    target = inventory.target.value
    for scanned in inventory.files:
        if not scanned.findings:
            continue
        fixable = sum(finding.fixable for finding in scanned.findings)
        title = Text.assemble(
            (scanned.path, "bold"),
            f"  {_count(len(scanned.findings), 'finding')}, "
            f"{fixable} fixed by codemods for {target}",
        )
        console.print(title)
        console.print(_file_table(scanned.findings))
    _print_summary(inventory, console)


def _file_table(findings: tuple[Finding, ...]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    table.add_column("line", justify="right", no_wrap=True)
    table.add_column("rule", no_wrap=True)
    table.add_column("effort", no_wrap=True)
    table.add_column("fix", no_wrap=True)
    table.add_column("finding")
    for finding in findings:
        table.add_row(
            f"{finding.line}:{finding.col}",
            finding.rule,
            Text(finding.effort.value, style=EFFORT_STYLES[finding.effort]),
            Text("codemod", style="green") if finding.fixable else Text("manual", style="yellow"),
            finding.message,
        )
        if finding.code:
            code = Text(finding.code, style="dim", no_wrap=True, overflow="ellipsis")
            table.add_row("", "", "", "", code)
    return table


def _print_summary(inventory: Inventory, console: Console) -> None:
    summary = inventory.summary
    total = summary["findings"]
    if total == 0:
        console.print(
            f"No CUDA lock-in found for {inventory.target.value} "
            f"({_count(summary['files_scanned'], 'file')}, "
            f"{_count(summary['lines_scanned'], 'line')} scanned)."
        )
    else:
        share = round(100 * summary["automatic_share"])
        console.print(
            Text.assemble(
                (f"{_count(total, 'finding')} in {_count(len(summary['files']), 'file')}", "bold"),
                f" ({_count(summary['files_scanned'], 'file')}, "
                f"{_count(summary['lines_scanned'], 'line')} scanned); ",
                (
                    f"{summary['fixable']} ({share}%) fixed by codemods for "
                    f"{inventory.target.value}",
                    "green",
                ),
            )
        )
        categories = ", ".join(f"{name} {count}" for name, count in summary["by_category"].items())
        console.print(f"by category: {categories}")
        efforts = ", ".join(f"{name} {count}" for name, count in summary["by_effort"].items())
        console.print(f"by effort: {efforts}  (`agent rules CODE` explains a rule)")
    for item in inventory.unparsable:
        console.print(
            Text(f"could not parse {item.path}:{item.line}:{item.col}: {item.error}", "red")
        )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
