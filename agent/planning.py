"""Rules-first planning: every fixable finding becomes a codemod step (one per rule family);
judgement findings become LLM steps when a model is configured, else manual work items.

Pure functions over finding dicts (the scanner's JSON shape: rule, category, path, line, col,
end_line, end_col, message, effort, fixable, targets).
"""

from collections import defaultdict
from typing import Any

from tools.rules import get_rule


def make_plan(
    findings: list[dict[str, Any]], *, has_model: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The plan steps and the manual items for `findings`."""
    codemod_groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    judgement_groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for finding in findings:
        if finding["fixable"]:
            codemod_groups[get_rule(finding["rule"]).family].append(finding)
        else:
            judgement_groups[finding["path"]].append(finding)
    steps = [_codemod_step(family, group) for family, group in sorted(codemod_groups.items())]
    manual: list[dict[str, Any]] = []
    for path, group in sorted(judgement_groups.items()):
        if has_model:
            steps.append(_llm_step(path, group))
        else:
            manual.extend(_manual_item(finding) for finding in group)
    for number, step in enumerate(steps, 1):
        step["id"] = f"S{number}"
    return steps, manual


def _codemod_step(family: str, findings: list[dict[str, Any]]) -> dict[str, Any]:
    rules = sorted({finding["rule"] for finding in findings})
    paths = sorted({finding["path"] for finding in findings})
    return {
        "kind": "codemod",
        "family": family,
        "rules": rules,
        "paths": paths,
        "sites": len(findings),
        "summary": f"{family}: {len(findings)} site(s) by codemod ({', '.join(rules)})",
    }


def _llm_step(path: str, findings: list[dict[str, Any]]) -> dict[str, Any]:
    rules = sorted({finding["rule"] for finding in findings})
    families = sorted({get_rule(code).family for code in rules})
    return {
        "kind": "llm",
        "family": "+".join(families),
        "rules": rules,
        "paths": [path],
        "sites": len(findings),
        "findings": findings,
        "summary": f"{path}: {len(findings)} site(s) need judgement ({', '.join(rules)})",
    }


def _manual_item(finding: dict[str, Any]) -> dict[str, Any]:
    rule = get_rule(finding["rule"])
    return {
        "rule": rule.code,
        "path": finding["path"],
        "line": finding["line"],
        "effort": finding["effort"],
        "message": finding["message"],
        "guidance": rule.after.strip() or rule.explanation.splitlines()[0],
    }


def plan_markdown(steps: list[dict[str, Any]], manual: list[dict[str, Any]]) -> str:
    """The plan as a short markdown list (shown to the user and written to the run folder)."""
    lines = ["# Migration plan", ""]
    lines += [f"- **{step['id']}** ({step['kind']}) {step['summary']}" for step in steps]
    if not steps:
        lines.append("- nothing to change automatically")
    if manual:
        lines += ["", "## Manual work", ""]
        for item in manual:
            where = f"`{item['path']}:{item['line']}`"
            lines.append(f"- {where} {item['rule']} ({item['effort']}): {item['message']}")
    return "\n".join(lines) + "\n"
