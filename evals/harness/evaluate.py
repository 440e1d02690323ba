"""`run_eval`: the plain function behind `agent eval` (the CLI parses, this runs).

It picks the cases, skips the pairs an earlier run of the same folder finished, runs the rest on
the chosen executor, and writes eval.json, EVAL_REPORT.md and eval.png from every result in the
folder.
"""

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from agent.log import get_logger
from agent.settings import Target, load_settings
from evals.harness.cases import EvalCase, collect_cases
from evals.harness.command import RunConfig
from evals.harness.layout import RunLayout
from evals.harness.local import run_local
from evals.harness.plot import plot_eval
from evals.harness.progress import EvalProgress
from evals.harness.ray_executor import require_ray, run_on_ray
from evals.harness.report_md import render_markdown
from evals.harness.results import CaseResult, load_result, save_result
from evals.harness.runner import CaseWork
from evals.harness.summary import exit_status, summarize

log = get_logger(__name__)

REPORT_VERSION = 1
RESUME_KEYS = ("llm", "model", "base_url", "sandbox")
"""Settings a resumed eval must share with the run that made the folder."""


@dataclass(frozen=True)
class EvalOptions:
    """What `agent eval` was asked to do."""

    run_dir: Path
    suite: Path | None
    """The suite folder; None with a manifest only."""
    cases: str = "*"
    targets: tuple[Target, ...] = tuple(Target)
    manifest: Path | None = None
    no_llm: bool = False
    model: str | None = None
    base_url: str | None = None
    sandbox: Literal["auto", "docker", "local"] | None = None
    jobs: int = 1
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    timeout_s: float | None = None


@dataclass(frozen=True)
class EvalRun:
    """What an eval produced: its folder, results, the report (eval.json) and exit status."""

    layout: RunLayout
    results: list[CaseResult]
    report: dict[str, Any]
    status: ExitStatus


def run_eval(options: EvalOptions, env: Mapping[str, str], *, quiet: bool = False) -> EvalRun:
    """Evaluate torchport on the chosen cases and targets (see the module docstring)."""
    started = time.monotonic()
    if options.executor == "ray":
        require_ray()
    layout = RunLayout(options.run_dir.resolve())
    cases = collect_cases(options.suite, options.manifest, options.cases)
    config = run_config(options, env)
    _check_resume(layout, config)
    works, done = plan_work(cases, options, layout, config)
    with EvalProgress(sum(len(w.targets) for w in works) + len(done), quiet=quiet) as progress:
        for result in done:
            progress.skipped(result.key, result.outcome)
        sink = _Sink(layout, progress)
        if options.executor == "ray":
            run_on_ray(works, jobs=options.jobs, address=options.ray_address, on_result=sink)
        else:
            run_local(works, jobs=options.jobs, on_result=sink)
    results = [
        load_result(layout.result(case.name, str(target)))
        for case in cases
        for target in options.targets
    ]
    report = build_report(results, options, config, layout, time.monotonic() - started)
    write_outputs(layout, report, results)
    return EvalRun(layout, results, report, exit_status(results))


def run_config(options: EvalOptions, env: Mapping[str, str]) -> RunConfig:
    """How `agent fix` is run; whether it has a model is decided as `agent fix` decides it."""
    settings = load_settings(None, env=env, overrides={"llm": {"model": options.model}})
    return RunConfig(
        llm=not options.no_llm and bool(settings.llm.model),
        no_llm=options.no_llm,
        model=options.model,
        base_url=options.base_url,
        sandbox=options.sandbox,
        timeout_s=options.timeout_s,
        env=dict(env),
    )


def plan_work(
    cases: Sequence[EvalCase], options: EvalOptions, layout: RunLayout, config: RunConfig
) -> tuple[list[CaseWork], list[CaseResult]]:
    """The work left, and the results kept from an earlier run (all but `infra` ones)."""
    works, done = [], []
    for case in cases:
        todo = []
        for target in options.targets:
            path = layout.result(case.name, str(target))
            earlier = load_result(path) if path.is_file() else None
            if earlier is not None and earlier.outcome != "infra":
                done.append(earlier)
            else:
                todo.append(target)
        if todo:
            works.append(CaseWork(case, tuple(todo), layout.root, config))
    return works, done


def _check_resume(layout: RunLayout, config: RunConfig) -> None:
    """Record how this folder's eval runs; refuse to mix results made differently."""
    wanted = {
        "llm": config.llm,
        "model": config.model,
        "base_url": config.base_url,
        "sandbox": config.sandbox,
    }
    if layout.meta.is_file():
        recorded = json.loads(layout.meta.read_text(encoding="utf-8"))
        differ = [key for key in RESUME_KEYS if recorded.get(key) != wanted[key]]
        if differ:
            shown = ", ".join(f"{k}: {recorded.get(k)!r} then, {wanted[k]!r} now" for k in differ)
            raise BadInputError(
                f"{layout.root} holds an eval run with other settings ({shown})",
                hint="resume with the same options, or give a new --run-dir",
            )
        return
    layout.root.mkdir(parents=True, exist_ok=True)
    layout.meta.write_text(json.dumps(wanted, indent=1) + "\n", encoding="utf-8")


class _Sink:
    """Stores each result as it arrives and shows it (called from the executor's threads)."""

    def __init__(self, layout: RunLayout, progress: EvalProgress) -> None:
        self.layout = layout
        self.progress = progress
        self._lock = threading.Lock()

    def __call__(self, result: CaseResult) -> None:
        with self._lock:
            save_result(self.layout.root, result)
        self.progress.finished(result)


def build_report(
    results: Sequence[CaseResult],
    options: EvalOptions,
    config: RunConfig,
    layout: RunLayout,
    seconds: float,
) -> dict[str, Any]:
    """eval.json's content: the run, every case's result, and the summary."""
    return {
        "version": REPORT_VERSION,
        "run": {
            "run_dir": str(layout.root),
            "suite": str(options.suite) if options.suite else None,
            "manifest": str(options.manifest) if options.manifest else None,
            "cases": options.cases,
            "targets": [str(target) for target in options.targets],
            "llm": config.llm,
            "model": options.model,
            "sandbox": options.sandbox,
            "executor": options.executor,
            "jobs": options.jobs,
            "timeout_s": options.timeout_s,
            "seconds": round(seconds, 1),
        },
        "cases": [result.model_dump(mode="json") for result in results],
        "summary": summarize(results),
    }


def write_outputs(layout: RunLayout, report: dict[str, Any], results: Sequence[CaseResult]) -> None:
    """eval.json, EVAL_REPORT.md and eval.png in the run folder."""
    layout.report_json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    layout.report_md.write_text(render_markdown(report), encoding="utf-8")
    plot_eval(results, report["summary"], layout.plot)
