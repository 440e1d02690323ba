"""`edit`: apply the plan (first pass) or the diagnosis' action, one commit per change."""

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from agent.budget import fingerprint, tokens_used
from agent.context import FixContext
from agent.editing import apply_codemods, apply_llm_session
from agent.evaluation import make_run_tool
from agent.settings import Target
from agent.state import FixState
from agent.tasks import finding_task, repair_task
from agent.workspace import Workspace
from tools.rules import with_partners


class _Editor:
    """One edit pass: the workspace, the iteration, and the model calls made so far."""

    def __init__(self, ctx: FixContext, state: FixState) -> None:
        self.ctx = ctx
        self.state = state
        self.workspace = Workspace(ctx.folder.workspace)
        self.workspace.reset(state["workspace_commit"])
        self.iteration = state.get("iteration", 0) + 1
        self.calls = list(state.get("llm_calls", []))
        self.changes: list[dict[str, Any]] = []
        self.run_tool: Callable[[], str] = make_run_tool(
            ctx, state.get("findings", []), self.iteration
        )

    def tokens_left(self) -> float:
        used = tokens_used({**self.state, "llm_calls": self.calls})
        return self.ctx.settings.budget.max_tokens - used

    def codemods(self, rules: list[str], family: str, reason: str) -> None:
        change = apply_codemods(
            self.workspace,
            target=Target(self.ctx.request.target),
            rules=rules,
            family=family,
            iteration=self.iteration,
            reason=reason,
            ignore=self.ctx.settings.scan.ignore,
        )
        if change:
            self.changes.append(change)

    def model(self, task: str, node: str, rules: list[str], family: str) -> None:
        change, calls = apply_llm_session(
            self.ctx,
            self.workspace,
            task=task,
            node=node,
            rules=rules,
            family=family,
            iteration=self.iteration,
            run_tool=self.run_tool,
            tokens_left=self.tokens_left,
        )
        self.calls.extend(calls)
        if change:
            self.changes.append(change)

    def apply_plan(self) -> None:
        for step in self.state.get("plan", []):
            self.ctx.progress("edit", step["summary"])
            if step["kind"] == "codemod":
                rules = sorted(with_partners(frozenset(step["rules"])))
                reason = f"Plan step {step['id']}: {step['summary']}."
                self.codemods(rules, step["family"], reason)
            else:
                task = finding_task(self.ctx, self.workspace, step)
                self.model(task, "edit", step["rules"], step["family"])

    def apply_action(self, action: dict[str, Any]) -> None:
        self.ctx.progress("edit", f"{action['kind']}: {action['reason']}")
        if action["kind"] == "codemod":
            self.codemods(action["rules"], action["family"], f"After failure: {action['reason']}")
        else:
            task = repair_task(self.ctx, self.workspace, self.state)
            self.model(task, "diagnose", action.get("rules", []), action["family"])


def edit(state: FixState, runtime: Runtime[FixContext]) -> dict[str, Any]:
    """Change the workspace; an action that changes nothing, or repeats an edit, is stuck."""
    editor = _Editor(runtime.context, state)
    start = editor.workspace.head()
    action = state.get("action")
    if action is None:
        editor.apply_plan()
    else:
        editor.apply_action(action)
    diff = editor.workspace.diff(start, editor.workspace.head())
    seen = list(state.get("edit_fingerprints", []))
    update: dict[str, Any] = {
        "iteration": editor.iteration,
        "workspace_commit": editor.workspace.head(),
        "changes": [*state.get("changes", []), *editor.changes],
        "llm_calls": editor.calls,
        "action": None,
        "edit_fingerprints": [*seen, fingerprint(diff)] if diff else seen,
    }
    if action is not None and not diff:
        update["stop_reason"] = "stuck: the last action changed nothing"
    elif diff and fingerprint(diff) in seen:
        update["stop_reason"] = "stuck: the same edit was proposed again"
    return update
