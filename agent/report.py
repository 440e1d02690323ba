"""The run's reports: `report.json` (machine-readable, versioned) and `MIGRATION_REPORT.md`.

Built from the state's raw facts and the workspace's commits; every change carries the rule codes
or the model session that made it, and its diff.
"""

from collections import Counter
from pathlib import Path
from typing import Any

import jinja2

from agent.budget import cost_used, tokens_used
from agent.context import FixContext
from agent.exit_status import ExitStatus
from agent.run_folder import REPORT_VERSION
from agent.state import FixState
from agent.workspace import Workspace

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def exit_status_for(state: FixState) -> ExitStatus:
    """The CLI's exit status for how the run ended."""
    verdict = state.get("verdict")
    reason = state.get("stop_reason", "")
    if verdict in ("parity", "nothing-to-migrate"):
        return ExitStatus.SUCCESS
    if verdict == "budget":
        return ExitStatus.BUDGET_EXHAUSTED
    if verdict == "manual":
        return ExitStatus.MANUAL_WORK
    if verdict == "error":
        return ExitStatus.INFRA_FAILURE
    if reason.startswith("stuck"):
        return ExitStatus.STUCK
    return ExitStatus.NO_PARITY


def build_report(ctx: FixContext, state: FixState, seconds: float) -> dict[str, Any]:
    """report.json's content."""
    workspace = Workspace(ctx.folder.workspace)
    changes = [
        _change_entry(workspace, number, change)
        for number, change in enumerate(state.get("changes", []), 1)
    ]
    findings = state.get("findings", [])
    runs = state.get("runs", [])
    reference = state.get("reference", {})
    last_run = runs[-1] if runs else {}
    return {
        "version": REPORT_VERSION,
        "run_id": state["run_id"],
        "target": state["target"],
        "repo": str(ctx.request.repo_root),
        "base_commit": state["base_commit"],
        "verdict": state.get("verdict", "no-parity"),
        "stop_reason": state.get("stop_reason", ""),
        "exit_status": exit_status_for(state).name.lower(),
        "commands": state["commands"],
        "findings": _findings_summary(findings),
        "plan": state.get("plan", []),
        "manual": state.get("manual", []),
        "changes": changes,
        "parity": state.get("parity"),
        "reference": reference,
        "ops_not_lowered": last_run.get("ops_not_lowered", []),
        "peak_device_bytes": last_run.get("peak_device_bytes"),
        "diagnoses": state.get("diagnoses", []),
        "statistics": _statistics(state, seconds, changes),
    }


def _change_entry(workspace: Workspace, number: int, change: dict[str, Any]) -> dict[str, Any]:
    diff = workspace.diff(change["parent"], change["commit"])
    added = sum(
        1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
    )
    removed = sum(
        1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")
    )
    return {
        **change,
        "id": f"C{number}",
        "lines_added": added,
        "lines_removed": removed,
        "diff": diff,
    }


def _findings_summary(findings: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "total": len(findings),
        "fixable": sum(1 for f in findings if f["fixable"]),
        "by_category": dict(Counter(f["category"] for f in findings)),
        "by_rule": dict(Counter(f["rule"] for f in findings)),
    }


def _statistics(state: FixState, seconds: float, changes: list[dict[str, Any]]) -> dict[str, Any]:
    runs = state.get("runs", [])
    calls = state.get("llm_calls", [])
    by_node: dict[str, dict[str, float]] = {}
    for call in calls:
        node = by_node.setdefault(call["node"], {"calls": 0, "tokens": 0, "cost_usd": 0.0})
        node["calls"] += 1
        node["tokens"] += call["prompt_tokens"] + call["completion_tokens"]
        node["cost_usd"] += call["cost_usd"]
    lines = Counter[str]()
    for change in changes:
        lines[change["source"]] += change["lines_added"] + change["lines_removed"]
    return {
        "iterations": state.get("iteration", 0),
        "seconds": round(seconds, 2),
        "reference_seconds": (state.get("reference") or {}).get("seconds", 0.0),
        "target_seconds": round(sum(run["seconds"] for run in runs), 2),
        "target_runs": len(runs),
        "llm_calls": len(calls),
        "tokens": tokens_used(state),
        "cost_usd": round(cost_used(state), 6),
        "by_node": by_node,
        "lines_changed_by_rules": lines["rule"],
        "lines_changed_by_llm": lines["llm"],
    }


def render_markdown(report: dict[str, Any]) -> str:
    """MIGRATION_REPORT.md: what changed and why, parity table, ops not lowered, manual items."""
    return _TEMPLATES.get_template("migration_report.md.j2").render(report=report)
