"""`agent scan`: the CUDA lock-in linter."""

import io
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console

from agent.commands.common import existing_dir, print_json, state_of, stdout
from agent.errors import BadInputError, InfraError
from agent.exit_status import ExitStatus
from agent.log import get_logger
from agent.settings import Target, load_settings
from tools.rules import Effort
from tools.scanner import Inventory, scan_path
from tools.scanner.report import inventory_json, inventory_sarif, render_table

log = get_logger(__name__)
FORMATS: tuple[Literal["table", "json", "sarif"], ...] = ("table", "json", "sarif")
REPORT_WIDTH = 120


def scan(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Repository or folder to scan.")],
    target: Annotated[
        Target | None,
        typer.Option(
            help="Target the findings are judged for (default: the repo's settings, else agnostic)."
        ),
    ] = None,
    output_format: Annotated[str, typer.Option("--format", help="table, json or sarif.")] = "table",
    output: Annotated[Path | None, typer.Option(help="Write the report to this file.")] = None,
    fail_on: Annotated[
        str | None,
        typer.Option(
            help="Exit 8 when a finding needs at least this effort: any, low, medium, high "
            "(none: never); default: the repo's settings."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
) -> int:
    """Find CUDA lock-in in a repository and report it with rule codes.

    Every site (device strings, torch.cuda calls, AMP and GradScaler, NCCL, Triton kernels,
    CUDA-only libraries, float64, ...) is listed with its rule code, effort, and whether a codemod
    fixes it for the target. Files ignored by git, virtual environments and site-packages are
    skipped; files that do not parse are reported.
    """
    root = existing_dir(path)
    chosen_format = "json" if as_json else output_format
    if chosen_format not in FORMATS:
        raise BadInputError(
            f"unknown report format {output_format!r}", hint=f"use one of {', '.join(FORMATS)}"
        )
    overrides = {"target": target, "scan": {"fail_on": fail_on}}
    settings = load_settings(root, env=state_of(ctx).env, overrides=overrides)
    inventory = scan_path(
        root, target=settings.target or Target.AGNOSTIC, ignore=settings.scan.ignore
    )
    report = _render(inventory, chosen_format, to_file=output is not None)
    if output is not None:
        _write(output, report)
    elif report is not None:
        typer.echo(report, nl=False)
    failing = failures(inventory, settings.scan.fail_on)
    if failing:
        log.warning("%d finding(s) at or above effort %r", failing, settings.scan.fail_on)
        return int(ExitStatus.FINDINGS)
    return int(ExitStatus.SUCCESS)


def _render(inventory: Inventory, chosen_format: str, *, to_file: bool) -> str | None:
    """The report text; None when the table went straight to the terminal."""
    data: dict[str, Any]
    if chosen_format == "json":
        data = inventory_json(inventory)
    elif chosen_format == "sarif":
        data = inventory_sarif(inventory)
    elif to_file:
        buffer = io.StringIO()
        render_table(inventory, Console(file=buffer, width=REPORT_WIDTH, color_system=None))
        return buffer.getvalue()
    else:
        render_table(inventory, stdout())
        return None
    if not to_file:
        print_json(data)
        return None
    return json.dumps(data, indent=2) + "\n"


def _write(output: Path, report: str | None) -> None:
    try:
        output.write_text(report or "", encoding="utf-8")
    except OSError as exc:
        raise InfraError(f"cannot write the report to {output}: {exc.strerror}") from None
    log.info("wrote the report to %s", output)


def failures(inventory: Inventory, level: str) -> int:
    """How many findings reach the `--fail-on` level (`any`: all, `none`: never)."""
    if level == "none":
        return 0
    if level == "any":
        return len(inventory.findings)
    threshold = Effort(level).rank
    return sum(finding.effort.rank >= threshold for finding in inventory.findings)
