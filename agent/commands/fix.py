"""`agent fix`: migrate a repository to a target and prove parity."""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agent.commands.common import existing_dir, print_json, state_of, stdout
from agent.commands.progress import LiveProgress
from agent.context import FixRequest
from agent.discovery import resolve_commands
from agent.dry_run import dry_run
from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from agent.llm import Model, OpenAIModel
from agent.log import get_logger
from agent.migrate import MigrationOutcome, Services, load_request, resume_migration, run_migration
from agent.run_folder import default_runs_base
from agent.settings import Settings, Target, load_settings
from sandbox.factory import make_sandbox
from tools.codemods import preview
from tools.git.repo import open_repo

log = get_logger(__name__)

Option = typer.Option


def fix(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="The CUDA-first repository to migrate.")
    ] = None,
    target: Annotated[Target | None, Option(help="tpu, neuron or agnostic.")] = None,
    run: Annotated[list[str] | None, Option("--run", help="Command to run (repeatable).")] = None,
    no_llm: Annotated[bool, Option("--no-llm", help="Rules only; never call a model.")] = False,
    model: Annotated[str | None, Option(help="Model name (OpenAI-compatible).")] = None,
    base_url: Annotated[str | None, Option(help="OpenAI-compatible endpoint URL.")] = None,
    dry_run_flag: Annotated[
        bool,
        Option("--dry-run", help="Show the codemods' diff and the commit plan; write nothing."),
    ] = False,
    plan_only: Annotated[bool, Option("--plan-only", help="Stop after writing the plan.")] = False,
    resume: Annotated[str | None, Option(help="Continue an interrupted run by its id.")] = None,
    run_dir: Annotated[Path | None, Option(help="Folder for run folders.")] = None,
    output: Annotated[Path | None, Option(help="Write the migrated tree here (no branch).")] = None,
    max_iterations: Annotated[int | None, Option(help="Iteration budget.")] = None,
    max_tokens: Annotated[int | None, Option(help="Token budget.")] = None,
    max_cost: Annotated[float | None, Option(help="Cost budget in USD.")] = None,
    timeout: Annotated[float | None, Option(help="Time budget in seconds.")] = None,
    sandbox: Annotated[
        Literal["auto", "docker", "local"] | None, Option(help="auto, docker or local.")
    ] = None,
    chip: Annotated[str | None, Option(help="Chip profile (v5e, v6e, trn1, trn2, ...).")] = None,
    no_branch: Annotated[bool, Option("--no-branch", help="Do not create the git branch.")] = False,
    branch: Annotated[str | None, Option(help="Branch name [default: torchport/<target>].")] = None,
    force: Annotated[bool, Option("--force", help="Replace a branch torchport made.")] = False,
    open_pr: Annotated[bool, Option("--open-pr", help="Push and open/update a PR.")] = False,
    remote: Annotated[str, Option(help="Remote to push to.")] = "origin",
    base: Annotated[str | None, Option(help="PR base branch [default: repo default].")] = None,
    label: Annotated[list[str] | None, Option("--label", help="PR label (repeatable).")] = None,
    repo: Annotated[str | None, Option(help="owner/name when the remote is not GitHub.")] = None,
    as_json: Annotated[bool, Option("--json", help="Print report.json at the end.")] = False,
) -> int:
    """Migrate a repository to a target and prove parity.

    Scan, plan, edit, run the original and the migrated code in the sandbox, compare their outputs,
    and iterate until parity; the result lands on a new git branch `torchport/<target>` with a
    report. Runs leave `.torchport/runs/<run_id>/` beside the repository (or under --run-dir).
    """
    cli = state_of(ctx)
    overrides: dict[str, Any] = {
        "target": target,
        "chip": chip,
        "no_llm": no_llm or None,
        "llm": {"model": model, "base_url": base_url},
        "budget": {
            "max_iterations": max_iterations,
            "max_tokens": max_tokens,
            "max_cost_usd": max_cost,
            "timeout_s": timeout,
        },
        "sandbox": {"type": sandbox},
    }
    if resume:
        return _resume(resume, path, run_dir, overrides, cli.env, cli.verbosity, as_json)
    if path is None:
        raise BadInputError("missing PATH", hint="agent fix PATH --target tpu|neuron|agnostic")
    root = existing_dir(path)
    settings = load_settings(root, env=cli.env, overrides=overrides)
    chosen = _target(settings)
    if dry_run_flag:
        _show_dry_run(root, chosen, settings, branch)
        return int(ExitStatus.SUCCESS)
    _check_output(output)
    request = FixRequest(
        repo_root=root,
        target=chosen,
        commands=resolve_commands(list(run or []), settings.run, root),
        overrides=overrides,
        plan_only=plan_only,
        output=output.resolve() if output else None,
        deliver=not (no_branch or output),
        branch=branch,
        force=force,
        open_pr=open_pr,
        remote=remote,
        base_branch=base,
        labels=list(label or []),
        repo_slug=repo,
    )
    with LiveProgress(quiet=cli.verbosity < 0) as progress:
        services = _services(settings, cli.env, progress)
        outcome = run_migration(request, settings, services, runs_base=run_dir)
    return _finish(outcome, as_json)


def _resume(
    run_id: str,
    path: Path | None,
    run_dir: Path | None,
    overrides: dict[str, Any],
    env: Mapping[str, str],
    verbosity: int,
    as_json: bool,
) -> int:
    base = run_dir or _runs_base_for(path)
    request = load_request(run_id, base)
    merged = {**request.overrides, **{k: v for k, v in overrides.items() if v is not None}}
    settings = load_settings(request.repo_root, env=env, overrides=merged)
    with LiveProgress(quiet=verbosity < 0) as progress:
        services = _services(settings, env, progress)
        outcome = resume_migration(run_id, settings, services, runs_base=base)
    return _finish(outcome, as_json)


def _runs_base_for(path: Path | None) -> Path:
    if path is not None:
        return default_runs_base(existing_dir(path))
    for candidate in (
        Path.cwd() / ".torchport" / "runs",
        Path.cwd().parent / ".torchport" / "runs",
    ):
        if candidate.is_dir():
            return candidate
    raise BadInputError("no runs found here", hint="pass the repository PATH or --run-dir")


def _target(settings: Settings) -> Target:
    if settings.target is None:
        raise BadInputError(
            "no target given", hint="pass --target tpu|neuron|agnostic or set target in the config"
        )
    return settings.target


def _check_output(output: Path | None) -> None:
    if output is not None and output.exists() and any(output.iterdir()):
        raise BadInputError(f"--output {output} exists and is not empty", hint="pick a new folder")


def _services(settings: Settings, env: Mapping[str, str], progress: LiveProgress) -> Services:
    chosen_model: Model | None = None
    if settings.no_llm:
        log.info("rules only (--no-llm)")
    elif settings.llm.model:
        chosen_model = OpenAIModel(settings.llm)
    else:
        log.info("no model configured (llm.model / OPENAI_MODEL): rules only")
    return Services(make_sandbox(settings.sandbox), chosen_model, progress, env)


def _show_dry_run(root: Path, target: Target, settings: Settings, branch: str | None) -> None:
    try:
        open_repo(root, require_clean=False)
    except BadInputError as exc:
        log.info("%s: showing the codemods' diff without a commit plan", exc.message)
        typer.echo(preview(root, target, ignore=settings.scan.ignore).diff, nl=False)
        return
    typer.echo(dry_run(root, target, settings, branch=branch), nl=False)


def _finish(outcome: MigrationOutcome, as_json: bool) -> int:
    if as_json and outcome.report is not None:
        print_json(outcome.report)
    elif outcome.report is not None:
        report = outcome.report
        console = stdout()
        console.print(f"verdict: [bold]{report['verdict']}[/] — {report['stop_reason']}")
        delivery = report.get("delivery") or {}
        if delivery.get("branch"):
            console.print(f"branch: {delivery['branch']} ({len(delivery['commits'])} commits)")
        if delivery.get("pull_request"):
            console.print(f"pull request: {delivery['pull_request']['url']}")
        console.print(f"report: {outcome.folder.report_md}")
    else:
        stdout().print(f"plan: {outcome.folder.path / 'plan.md'} (run id {outcome.run_id})")
    return int(outcome.status)
