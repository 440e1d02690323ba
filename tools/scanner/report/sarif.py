"""SARIF 2.1.0 for GitHub code scanning: every rule as a reporting descriptor, every finding as
a result with its region, files that did not parse as tool notifications."""

import hashlib
from typing import Any

from agent import __version__
from tools.rules import Rule, all_rules
from tools.scanner.findings import Finding
from tools.scanner.inventory import Inventory

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/torchport/torchport"
ROOT_BASE = "%SRCROOT%"


def inventory_sarif(inventory: Inventory) -> dict[str, Any]:
    """The scan as a SARIF 2.1.0 log with one run."""
    rules = all_rules()
    index = {rule.code: number for number, rule in enumerate(rules)}
    run = {
        "tool": {
            "driver": {
                "name": "torchport",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_descriptor(rule) for rule in rules],
            }
        },
        "automationDetails": {"id": f"torchport/{inventory.target.value}/"},
        "originalUriBaseIds": {ROOT_BASE: {"uri": inventory.root.as_uri() + "/"}},
        "results": [_result(finding, index[finding.rule]) for finding in inventory.findings],
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {
                        "level": "warning",
                        "message": {"text": f"could not parse: {item.error}"},
                        "locations": [_location(item.path, item.line, item.col)],
                    }
                    for item in inventory.unparsable
                ],
            }
        ],
        "properties": {"target": inventory.target.value, "summary": inventory.summary},
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _descriptor(rule: Rule) -> dict[str, Any]:
    markdown = (
        f"{rule.explanation}\n\nBefore:\n\n```python\n{rule.before}\n```\n\n"
        f"After:\n\n```python\n{rule.after}\n```\n\n"
        f"Matters for: {', '.join(sorted(target.value for target in rule.targets))}. "
        f"Codemod for: {', '.join(sorted(target.value for target in rule.codemods)) or 'none'}."
    )
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": rule.explanation, "markdown": markdown},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {
            "category": rule.category.value,
            "effort": rule.effort.value,
            "tags": ["cuda-lock-in", rule.category.value],
            "precision": "high",
        },
    }


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    suffix = " (a torchport codemod fixes it)" if finding.fixable else ""
    location = _location(finding.path, finding.line, finding.col)
    region = location["physicalLocation"]["region"]
    region.update(endLine=finding.end_line, endColumn=finding.end_col)
    if finding.code:
        region["snippet"] = {"text": finding.code}
    fingerprint = hashlib.sha256(
        f"{finding.rule}:{finding.path}:{finding.code}".encode()
    ).hexdigest()
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.severity.value,
        "message": {"text": finding.message + suffix},
        "locations": [location],
        "partialFingerprints": {"torchportFinding/v1": fingerprint},
        "properties": {
            "category": finding.category,
            "effort": finding.effort.value,
            "fixable": finding.fixable,
            "targets": list(finding.targets),
        },
    }


def _location(path: str, line: int, col: int) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path, "uriBaseId": ROOT_BASE},
            "region": {"startLine": line, "startColumn": col},
        }
    }
