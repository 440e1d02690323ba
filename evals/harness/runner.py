"""Run one case: prepare its source once, then `agent fix` on a fresh repo per target."""

import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.errors import InfraError
from agent.log import get_logger
from agent.settings import Target
from evals.harness.cases import EvalCase
from evals.harness.child import Cancelled, run_child
from evals.harness.command import RunConfig, fix_argv, fix_env, write_command
from evals.harness.layout import RunLayout
from evals.harness.metrics import infra_result, judge_run, result_header
from evals.harness.prepare import link_cache, make_repo, prepare_source
from evals.harness.results import CaseResult
from evals.tasks import TaskSpec

log = get_logger(__name__)

ResultSink = Callable[[CaseResult], None]


@dataclass(frozen=True)
class CaseWork:
    """One unit of work for an executor: a case and the targets still to run for it."""

    case: EvalCase
    targets: tuple[Target, ...]
    run_dir: Path
    config: RunConfig


def run_case(
    work: CaseWork, on_result: ResultSink | None = None, cancel: threading.Event | None = None
) -> list[CaseResult]:
    """Every target of `work`, in order (they share the case's reference cache); each result is
    passed to `on_result` as soon as it is known. Raises Cancelled when `cancel` is set."""
    layout = RunLayout(work.run_dir)
    case, config = work.case, work.config
    headers = {
        target: result_header(case, target, case.expectation(target, llm=config.llm))
        for target in work.targets
    }
    results: list[CaseResult] = []

    def keep(result: CaseResult) -> None:
        results.append(result)
        if on_result is not None:
            on_result(result)

    try:
        spec = prepare_source(case, layout, config.env)
    except InfraError as exc:
        for target in work.targets:
            keep(infra_result(headers[target], exc.one_line()))
        return results
    for target in work.targets:
        keep(_run_guarded(spec, case, target, headers[target], layout, config, cancel))
    return results


def _run_guarded(
    spec: TaskSpec,
    case: EvalCase,
    target: Target,
    header: dict[str, Any],
    layout: RunLayout,
    config: RunConfig,
    cancel: threading.Event | None,
) -> CaseResult:
    """run_target, with infrastructure errors and harness bugs recorded as `infra` results."""
    try:
        return run_target(spec, case, target, header, layout, config, cancel)
    except Cancelled:
        raise
    except InfraError as exc:
        return infra_result(header, exc.one_line())
    except Exception as exc:  # a bug of the harness: recorded with its traceback, others go on
        log.exception("harness error on %s/%s", case.name, target)
        return infra_result(header, f"the harness failed: {exc!r} (traceback in its log)")


def run_target(
    spec: TaskSpec,
    case: EvalCase,
    target: Target,
    header: dict[str, Any],
    layout: RunLayout,
    config: RunConfig,
    cancel: threading.Event | None,
) -> CaseResult:
    """`agent fix` on a fresh git repo of the case's source, killed at the case's time limit."""
    folder = layout.target_dir(case.name, str(target))
    if folder.exists():
        shutil.rmtree(folder)  # left by an interrupted eval
    folder.mkdir(parents=True)
    source = layout.source(case.name)
    repo = make_repo(source, layout.repo(case.name, str(target)), f"{case.name}: CUDA original")
    link_cache(folder, layout.cache(case.name))
    path = repo / spec.root.relative_to(source)
    argv = fix_argv(path, target, spec, config, layout.runs(case.name, str(target)))
    env = fix_env(spec, config)
    write_command(folder / "command.json", argv, env, config.env)
    limit = config.limit_s(spec)
    log.debug("%s/%s: %s", case.name, target, " ".join(argv))
    child = run_child(
        argv,
        env=env,
        cwd=folder,
        log_path=layout.fix_log(case.name, str(target)),
        timeout_s=limit,
        cancel=cancel,
    )
    return judge_run(header, child, layout, limit_s=limit)
