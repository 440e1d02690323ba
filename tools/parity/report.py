"""The parity report: verdict, one row per probe, the failure reasons, what was excluded.

`to_dict()` is the JSON form (the agent's state and `--json`), `table()` a rich table for the
terminal, `to_markdown()` the section the migration report embeds.
"""

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from rich.markup import escape
from rich.table import Table

from tools.parity.compare import ProbeRow, Verdict


@dataclass(frozen=True)
class Failure:
    """One reason the verdict is `fail`, with a stable code."""

    code: str
    """no_probes, exit_code, nan_inf, degenerate, not_on_device, protected_changed,
    same_program, probe_integrity, precision, probe_mismatch."""
    message: str


@dataclass
class ParityReport:
    """The outcome of `check_parity`."""

    verdict: Verdict
    target: str
    reference_source: str
    rows: list[ProbeRow] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    excluded: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    low_precision: str | None = None

    @property
    def passed(self) -> bool:
        """Parity reached."""
        return self.verdict == "pass"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN and infinities become None)."""
        return {
            "verdict": self.verdict,
            "target": self.target,
            "reference": self.reference_source,
            "low_precision": self.low_precision,
            "reasons": [failure.message for failure in self.failures],
            "failures": [asdict(failure) for failure in self.failures],
            "not_on_device": any(f.code == "not_on_device" for f in self.failures),
            "rows": [_clean(asdict(row)) for row in self.rows],
            "excluded": list(self.excluded),
            "notes": list(self.notes),
            "counts": {
                verdict: sum(1 for row in self.rows if row.verdict == verdict)
                for verdict in ("pass", "marginal", "fail")
            },
        }

    def table(self) -> Table:
        """The per-probe table (probe, max abs, max rel, R, verdict, note)."""
        table = Table(title=f"parity vs {self.reference_source} reference: {self.verdict.upper()}")
        for column in ("probe", "max abs", "max rel", "R", "verdict", "note"):
            table.add_column(column, overflow="fold")
        styles = {"pass": "green", "marginal": "yellow", "fail": "red"}
        for row in self.rows:
            table.add_row(
                escape(row.probe),
                _number(row.max_abs),
                _number(row.max_rel),
                _number(row.ratio),
                f"[{styles[row.verdict]}]{row.verdict}[/]",
                escape(row.note),
            )
        return table

    def to_markdown(self) -> str:
        """The report as a markdown section."""
        lines = [
            f"### Parity: **{self.verdict}** (target `{self.target}`, "
            f"reference: {self.reference_source})",
            "",
        ]
        if self.failures:
            lines += ["Failures:", ""]
            lines += [f"- `{failure.code}`: {failure.message}" for failure in self.failures]
            lines.append("")
        lines += ["| probe | max abs | max rel | R | verdict | note |", "|---|---|---|---|---|---|"]
        for row in self.rows:
            cells = [
                f"`{row.probe}`", _number(row.max_abs), _number(row.max_rel),
                _number(row.ratio), row.verdict, row.note.replace("|", "\\|"),
            ]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
        if self.excluded:
            lines += ["", "Excluded from the comparison:", ""]
            lines += [f"- `{item['probe']}`: {item['reason']}" for item in self.excluded]
        if self.notes:
            lines += ["", "Notes:", ""] + [f"- {note}" for note in self.notes]
        return "\n".join(lines) + "\n"


def _number(value: float | None) -> str:
    if value is None:
        return "–"
    if math.isnan(value) or math.isinf(value):
        return str(value)
    return f"{value:.3g}"


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    return {
        key: None if isinstance(value, float) and not math.isfinite(value) else value
        for key, value in row.items()
    }
