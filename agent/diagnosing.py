"""Diagnosis of an iteration and the choice of the next action."""

import dataclasses
from typing import Any

from agent.context import FixContext
from agent.evaluation import last_run_output
from agent.settings import Target
from agent.state import FixState
from tools.errors import Diagnosis, ErrorKind, diagnose_run
from tools.scanner import scan_path


def diagnose_state(ctx: FixContext, state: FixState) -> Diagnosis:
    """A crashed run is diagnosed from its output; a completed run from the parity report."""
    output = last_run_output(ctx, state)
    if output is not None:
        diagnosis = diagnose_run(
            exit_code=output.exit_code,
            stdout=output.stdout,
            stderr=output.stderr,
            workspace=ctx.folder.workspace,
            timed_out=output.timed_out,
            oom_killed=output.oom_killed,
        )
        details = {
            **diagnosis.details,
            "command": output.command,
            "output_tail": output.tail,
            "metrics": output.metrics_line,
        }
        return dataclasses.replace(diagnosis, details=details)
    parity = state.get("parity") or {}
    reasons = parity.get("reasons") or ["outputs differ from the reference"]
    kind = ErrorKind.NOT_ON_DEVICE if parity.get("not_on_device") else ErrorKind.PARITY_FAILURE
    return Diagnosis(
        kind,
        "; ".join(reasons),
        "Compare the migrated code with the original where the failing probes are computed.",
        details={"failing": [r["probe"] for r in parity.get("rows", []) if r["verdict"] != "pass"]},
    )


def choose_action(ctx: FixContext, state: FixState, diagnosis: Diagnosis) -> dict[str, Any] | None:
    """A codemod for remaining fixable findings in the failure's categories, else the model."""
    if diagnosis.categories and diagnosis.kind not in (ErrorKind.PARITY_FAILURE,):
        inventory = scan_path(
            ctx.folder.workspace, target=Target(state["target"]), ignore=ctx.settings.scan.ignore
        )
        remaining = [finding.to_json() for finding in inventory.findings]
        fixable = [f for f in remaining if f["fixable"] and f["category"] in diagnosis.categories]
        if fixable:
            return {
                "kind": "codemod",
                "rules": sorted({f["rule"] for f in fixable}),
                "family": fixable[0]["category"],
                "reason": diagnosis.one_line(),
            }
    if ctx.model is None:
        return None
    family = diagnosis.categories[0] if diagnosis.categories else str(diagnosis.kind)
    return {"kind": "llm", "rules": [], "family": family, "reason": diagnosis.one_line()}
