"""Renderers of an Inventory: a rich table grouped by file, JSON, and SARIF 2.1.0."""

from tools.scanner.report.as_json import inventory_json
from tools.scanner.report.sarif import inventory_sarif
from tools.scanner.report.table import render_table

__all__ = ["inventory_json", "inventory_sarif", "render_table"]
