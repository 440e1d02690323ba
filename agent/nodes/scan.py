"""`scan`: find the CUDA lock-in in the original tree."""

from typing import Any

from langgraph.runtime import Runtime

from agent.context import FixContext
from agent.settings import Target
from agent.state import FixState
from tools.scanner import scan_path


def scan(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Scan the original tree for the target; findings are stored as the scanner's JSON."""
    ctx = runtime.context
    ctx.progress("scan", "scanning the original tree")
    inventory = scan_path(
        ctx.folder.original, target=Target(state["target"]), ignore=ctx.settings.scan.ignore
    )
    findings = [finding.to_json() for finding in inventory.findings]
    ctx.progress("scan", f"{len(findings)} finding(s)")
    return {"findings": findings}
