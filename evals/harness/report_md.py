"""EVAL_REPORT.md: the summary, pass rates by target, difficulty and tag, and a row per case."""

from pathlib import Path
from typing import Any

import jinja2

MARKS = {"pass": "✅ pass", "fail": "❌ fail", "timeout": "⏱ timeout", "crash": "💥 crash"}


def _number(value: float | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4g}"
    return f"{int(value):,}"


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _size(value: int | None) -> str:
    if value is None:
        return "—"
    size = float(value)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:.0f} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def _ops(ops: list[str] | None) -> str:
    if ops is None:
        return "—"
    shown = ", ".join(f"`{op}`" for op in ops[:3])
    return f"{shown} (+{len(ops) - 3})" if len(ops) > 3 else shown or "none"


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(
        num=_number,
        secs=_seconds,
        pct=_percent,
        size=_size,
        ops=_ops,
        mark=lambda outcome: MARKS.get(outcome, outcome),
    )
    return environment


def render_markdown(report: dict[str, Any]) -> str:
    """The markdown of an eval report (the dict written as eval.json)."""
    return _environment().get_template("eval_report.md.j2").render(report=report)
