"""The JSON report: `{"findings": [...], "summary": {...}}`, paths relative to the scanned root."""

from typing import Any

from tools.scanner.inventory import Inventory


def inventory_json(inventory: Inventory) -> dict[str, Any]:
    """The documented JSON shape of a scan."""
    return {
        "findings": [finding.to_json() for finding in inventory.findings],
        "summary": inventory.summary,
    }
