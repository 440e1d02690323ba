"""What a scan reports: findings, files that did not parse, and per-file results."""

from dataclasses import dataclass, field
from typing import Any

from tools.rules import Effort, Severity


@dataclass(frozen=True)
class Finding:
    """One CUDA-specific site. Lines are 1-based, columns 1-based (end column exclusive).

    `fixable` and `effort` are for the target the scan was run for: a site a codemod fixes has
    effort `none`. `code` is the source line, shown by the table and not part of the JSON.
    """

    rule: str
    category: str
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    message: str
    effort: Effort
    fixable: bool
    targets: tuple[str, ...]
    severity: Severity
    code: str = ""

    def to_json(self) -> dict[str, Any]:
        """The finding in the documented JSON shape."""
        return {
            "rule": self.rule,
            "category": self.category,
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "end_col": self.end_col,
            "message": self.message,
            "effort": self.effort.value,
            "fixable": self.fixable,
            "targets": list(self.targets),
        }


@dataclass(frozen=True)
class Unparsable:
    """A file the scanner could not read as Python (or as text)."""

    path: str
    line: int
    col: int
    error: str

    def to_json(self) -> dict[str, Any]:
        """As plain data."""
        return {"path": self.path, "line": self.line, "col": self.col, "error": self.error}


@dataclass(frozen=True)
class FileScan:
    """The result for one file: its findings, or why it could not be scanned."""

    path: str
    lines: int
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    unparsable: Unparsable | None = None
