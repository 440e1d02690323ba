"""`run_migration` and `resume_migration`: the plain functions behind `agent fix`.

They prepare the run folder (request, original tree, workspace), drive the checkpointed graph,
save the trajectory after every node, and turn how the run ended into an exit status. A failure
of the infrastructure still leaves a report (verdict `error`).
"""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver

from agent.context import FixContext, FixRequest, Progress, no_progress
from agent.errors import BadInputError, TorchportError
from agent.exit_status import ExitStatus
from agent.graph import build_graph
from agent.llm import Model
from agent.log import get_logger
from agent.report import build_report, exit_status_for, render_markdown
from agent.run_folder import RunFolder, Trajectory, default_runs_base, new_run_id
from agent.settings import Settings
from agent.state import FixInput, FixState
from agent.workspace import Workspace, export_commit
from sandbox.types import Sandbox
from tools.git.repo import open_repo
from tools.scanner import scan_path

log = get_logger(__name__)


@dataclass(frozen=True)
class MigrationOutcome:
    """How a run ended: its folder, verdict, exit status and report."""

    folder: RunFolder
    status: ExitStatus
    verdict: str | None
    report: dict[str, Any] | None
    plan: list[dict[str, Any]]

    @property
    def run_id(self) -> str:
        """The run's id (for `--resume`)."""
        return self.folder.run_id


@dataclass(frozen=True)
class Services:
    """What a run talks to: the sandbox, the model (None: rules only), progress, environment."""

    sandbox: Sandbox
    model: Model | None
    progress: Progress = no_progress
    env: Mapping[str, str] = dataclasses.field(default_factory=dict)


def run_migration(
    request: FixRequest, settings: Settings, services: Services, *, runs_base: Path | None = None
) -> MigrationOutcome:
    """Migrate `request.repo_root` to `request.target` in a new run folder."""
    repo = open_repo(request.repo_root)
    request = dataclasses.replace(request, repo_root=repo.root / repo.path_in_repo)
    folder = RunFolder.create(runs_base or default_runs_base(repo.root), new_run_id())
    folder.write_json(folder.request, request.to_json())
    treeish = (
        repo.head_sha if str(repo.path_in_repo) == "." else f"{repo.head_sha}:{repo.path_in_repo}"
    )
    export_commit(repo.root, treeish, folder.original)
    _refuse_unparsable(folder.original, settings)
    workspace = Workspace.create(folder.original, folder.workspace)
    initial: FixInput = {
        "run_id": folder.run_id,
        "target": str(request.target),
        "commands": list(request.commands),
        "base_commit": repo.head_sha,
        "workspace_commit": workspace.head(),
        "plan_only": request.plan_only,
        "deliver": request.deliver and not request.plan_only,
    }
    Trajectory(folder).note("start", f"{repo.describe()} → {request.target}")
    return _drive(
        FixContext(
            request,
            settings,
            folder,
            services.sandbox,
            services.model,
            services.progress,
            services.env,
        ),
        initial,
    )


def resume_migration(
    run_id: str, settings: Settings, services: Services, *, runs_base: Path
) -> MigrationOutcome:
    """Continue a run that was interrupted, from its last completed node."""
    folder = RunFolder.find(runs_base, run_id)
    request = FixRequest.from_json(folder.read_json(folder.request))
    Trajectory(folder).note("resume", f"resuming {run_id}")
    ctx = FixContext(
        request, settings, folder, services.sandbox, services.model, services.progress, services.env
    )
    return _drive(ctx, None)


def load_request(run_id: str, runs_base: Path) -> FixRequest:
    """The request a run was started with (the CLI rebuilds settings from it on resume)."""
    folder = RunFolder.find(runs_base, run_id)
    return FixRequest.from_json(folder.read_json(folder.request))


def _refuse_unparsable(tree: Path, settings: Settings) -> None:
    inventory = scan_path(tree, ignore=settings.scan.ignore)
    if inventory.unparsable:
        first = inventory.unparsable[0]
        more = (
            f" (and {len(inventory.unparsable) - 1} more)" if len(inventory.unparsable) > 1 else ""
        )
        raise BadInputError(
            f"{first.path}:{first.line}: the file does not parse: {first.error}{more}",
            hint="fix the syntax error and commit, or add the path to scan.ignore",
        )


def _drive(ctx: FixContext, graph_input: FixInput | None) -> MigrationOutcome:
    folder = ctx.folder
    trajectory = Trajectory(folder)
    config: RunnableConfig = {"configurable": {"thread_id": folder.run_id}}
    with SqliteSaver.from_conn_string(str(folder.checkpoints)) as saver:
        graph = build_graph(saver)
        seen: dict[str, Any] = dict(graph.get_state(config).values)
        try:
            for chunk in graph.stream(graph_input, config, context=ctx, stream_mode="updates"):
                for node, update in chunk.items():
                    trajectory.record(node, update or {}, _summary(node, update or {}))
                    seen.update(update or {})
                    ctx.progress("status", _status_line(node, seen))
        except TorchportError as exc:
            state: FixState = graph.get_state(config).values  # type: ignore[assignment]
            _write_error_report(ctx, state, exc)
            raise
        state = graph.get_state(config).values  # type: ignore[assignment]
    report = folder.read_json(folder.report_json) if folder.report_json.is_file() else None
    status = ExitStatus.SUCCESS if state.get("plan_only") else exit_status_for(state)
    return MigrationOutcome(folder, status, state.get("verdict"), report, state.get("plan", []))


def _write_error_report(ctx: FixContext, state: FixState, exc: TorchportError) -> None:
    if "run_id" not in state:
        return
    failed: FixState = {**state, "verdict": "error", "stop_reason": exc.one_line()}
    data = build_report(ctx, failed, state.get("seconds_spent", 0.0))
    ctx.folder.write_json(ctx.folder.report_json, data)
    ctx.folder.report_md.write_text(render_markdown(data), encoding="utf-8")
    Trajectory(ctx.folder).note("error", exc.one_line())


def _status_line(node: str, seen: dict[str, Any]) -> str:
    diagnoses = seen.get("diagnoses") or [{}]
    tokens = sum(c["prompt_tokens"] + c["completion_tokens"] for c in seen.get("llm_calls", []))
    return (
        f"after {node} · iteration {seen.get('iteration', 0)} · "
        f"last error {diagnoses[-1].get('kind', 'none')} · {tokens} tokens · "
        f"{seen.get('seconds_spent', 0.0):.0f}s"
    )


def _summary(node: str, update: dict[str, Any]) -> str:
    if node == "scan":
        return f"{len(update.get('findings', []))} finding(s)"
    if node == "plan":
        return f"{len(update.get('plan', []))} step(s), {len(update.get('manual', []))} manual"
    if node == "edit":
        changes = len(update.get("changes", []))
        return f"iteration {update.get('iteration')}: {changes} change(s) so far"
    if node == "reference":
        reference = update.get("reference") or {}
        if not reference.get("available"):
            return str(reference.get("reason"))
        return f"{reference.get('probes')} probe(s) in {reference.get('seconds')}s"
    if node == "run":
        last = (update.get("runs") or [{}])[-1]
        return f"exit {last.get('exit_code')} in {last.get('seconds')}s ({last.get('backend')})"
    if node == "check":
        return f"parity {(update.get('parity') or {}).get('verdict')}"
    if node == "diagnose":
        last = (update.get("diagnoses") or [{}])[-1]
        return f"{last.get('kind')}: {last.get('message', '')[:120]}"
    if "stop_reason" in update:
        return str(update["stop_reason"])
    return ", ".join(sorted(update)) or "no change"
