"""The CUDA lock-in scanner: find every CUDA-specific construct, with its rule and fixability.

Public API: `scan_path(root, *, target, ignore, jobs) -> Inventory`,
`scan_source(source, path, *, target) -> list[Finding]`, and the renderers in
`tools.scanner.report`.
"""

from tools.scanner.findings import FileScan, Finding, Unparsable
from tools.scanner.inventory import Inventory, scan_path
from tools.scanner.source import UnparsableSourceError, scan_source

__all__ = [
    "FileScan",
    "Finding",
    "Inventory",
    "Unparsable",
    "UnparsableSourceError",
    "scan_path",
    "scan_source",
]
