"""The model's task texts, rendered from state facts with the prompt templates."""

from typing import Any

from agent.context import FixContext
from agent.prompts import render
from agent.state import FixState
from agent.workspace import Workspace
from tools.errors import Frame, code_around
from tools.rules import get_rule

MAX_DIFF_CHARS = 12_000


def finding_task(ctx: FixContext, workspace: Workspace, step: dict[str, Any]) -> str:
    """Ask the model to rewrite the judgement findings of one file."""
    path = step["paths"][0]
    findings = step.get("findings", [])
    excerpts = [
        code_around(workspace.path, Frame(path, finding["line"], ""), radius=4)
        for finding in findings
        if (workspace.path / path).is_file()
    ]
    rules = [get_rule(code).to_dict() for code in step["rules"]]
    return render(
        "edit_finding.j2",
        path=path,
        target=str(ctx.request.target),
        findings=findings,
        rules=rules,
        code="\n...\n".join(excerpts),
    )


def repair_task(ctx: FixContext, workspace: Workspace, state: FixState) -> str:
    """Ask the model to fix the last failure: a crash, or outputs that differ."""
    diagnosis = state["diagnoses"][-1]
    if diagnosis["kind"] in ("parity-failure", "not-on-device"):
        parity = state.get("parity") or {}
        diff = workspace.diff()
        return render(
            "fix_parity.j2",
            target=str(ctx.request.target),
            verdict=parity.get("verdict", "fail"),
            reasons=parity.get("reasons", [diagnosis["message"]]),
            rows=[row for row in parity.get("rows", []) if row.get("verdict") != "pass"],
            diff=diff[:MAX_DIFF_CHARS],
        )
    location = diagnosis.get("location")
    code = ""
    if location and (workspace.path / location["path"]).is_file():
        code = code_around(workspace.path, Frame(**location))
    return render(
        "fix_failure.j2",
        target=str(ctx.request.target),
        command=diagnosis["details"].get("command", ""),
        exit_code=diagnosis["details"].get("exit_code"),
        kind=diagnosis["kind"],
        message=diagnosis["message"],
        location=f"{location['path']}:{location['line']}" if location else "",
        code=code,
        frames=[f"{f['path']}:{f['line']}" for f in diagnosis.get("frames", [])],
        metrics=diagnosis["details"].get("metrics", ""),
        advice=diagnosis["advice"],
        output_tail=diagnosis["details"].get("output_tail", ""),
    )
