"""Edits to the workspace, each committed with what made it: a rule family's codemods or an LLM
session. Returns change records for the state (raw facts: rules, commit, files)."""

import time
from collections.abc import Callable, Sequence
from typing import Any

from agent.context import FixContext
from agent.prompts import render
from agent.session import run_session
from agent.settings import Target
from agent.toolbox import DEFAULT_PROTECTED, Toolbox
from agent.workspace import Workspace
from tools.codemods import migrate_tree, write_migrations


def protected_patterns(ctx: FixContext) -> tuple[str, ...]:
    """Files the model may not edit: tests, probes, specs, and what the parity spec protects."""
    return (*DEFAULT_PROTECTED, *ctx.settings.parity.protected)


def apply_codemods(
    workspace: Workspace,
    *,
    target: Target,
    rules: Sequence[str],
    family: str,
    iteration: int,
    reason: str,
    ignore: Sequence[str] = (),
) -> dict[str, Any] | None:
    """Run the codemods of `rules` over the workspace and commit; None when nothing changed."""
    before = workspace.head()
    migrations = migrate_tree(workspace.path, target, rules=list(rules), ignore=ignore)
    if not migrations:
        return None
    write_migrations(workspace.path, migrations)
    applied = [(m.path, fix) for m in migrations for fix in m.applied]
    codes = sorted({fix.rule for _, fix in applied}) or sorted(rules)
    lines = [f"- {path}:{fix.line} {fix.rule}: {fix.description}" for path, fix in applied]
    message = f"Migrate {family} code to {target} ({', '.join(codes)})\n\n{reason}\n\n" + "\n".join(
        lines
    )
    commit = workspace.commit(message)
    if commit is None:
        return None
    return {
        "source": "rule",
        "family": family,
        "rules": codes,
        "commit": commit,
        "parent": before,
        "files": workspace.changed_files(before, commit),
        "sites": len(applied),
        "summary": f"{family}: {len(applied)} site(s) rewritten by codemods ({', '.join(codes)})",
        "iteration": iteration,
    }


def apply_llm_session(
    ctx: FixContext,
    workspace: Workspace,
    *,
    task: str,
    node: str,
    rules: Sequence[str],
    family: str,
    iteration: int,
    run_tool: Callable[[], str],
    tokens_left: Callable[[], float],
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Let the model work on `task`; commit what it changed. Returns (change, model calls)."""
    assert ctx.model is not None, "LLM steps are planned only when a model is configured"
    before = workspace.head()
    toolbox = Toolbox(workspace.path, run=run_tool, protected=protected_patterns(ctx))
    started = time.monotonic()
    outcome = run_session(
        ctx.model,
        toolbox,
        system=render("system.j2", target=str(ctx.request.target)),
        task=task,
        node=node,
        max_turns=ctx.settings.llm.max_turns,
        tokens_left=tokens_left,
    )
    summary = outcome.summary or f"session ended: {outcome.stop_reason}"
    commit = workspace.commit(
        f"Fix {family} for {ctx.request.target} with the model ({node})\n\n{summary}"
    )
    if commit is None:
        return None, outcome.calls
    change = {
        "source": "llm",
        "family": family,
        "rules": sorted(rules),
        "commit": commit,
        "parent": before,
        "files": workspace.changed_files(before, commit),
        "summary": summary,
        "session": {
            "node": node,
            "stop_reason": outcome.stop_reason,
            "turns": outcome.turns,
            "seconds": round(time.monotonic() - started, 2),
            "model": ctx.model.name,
        },
        "iteration": iteration,
    }
    return change, outcome.calls
