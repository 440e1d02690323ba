"""`agent eval`: the evaluation harness over the benchmark suite (evals/harness)."""

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agent.commands.common import state_of, stdout
from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from agent.settings import Target

Option = typer.Option
DEFAULT_RUNS = Path(".torchport") / "evals"


def evaluate(
    ctx: typer.Context,
    suite: Annotated[
        Path | None, Option(help="Folder of benchmark cases (default: evals/suite).")
    ] = None,
    cases: Annotated[str, Option(help="Case names or globs, comma-separated.")] = "*",
    targets: Annotated[str, Option(help="Comma-separated targets.")] = "tpu,neuron,agnostic",
    no_llm: Annotated[bool, Option("--no-llm", help="Rules only; never call a model.")] = False,
    model: Annotated[str | None, Option(help="Model name (OpenAI-compatible).")] = None,
    base_url: Annotated[str | None, Option(help="OpenAI-compatible endpoint URL.")] = None,
    sandbox: Annotated[
        Literal["auto", "docker", "local"] | None, Option(help="auto, docker or local.")
    ] = None,
    jobs: Annotated[int, Option(min=1, help="Cases run at the same time.")] = 1,
    executor: Annotated[
        Literal["local", "ray"], Option(help="local (child processes) or ray (Ray tasks).")
    ] = "local",
    ray_address: Annotated[
        str | None, Option(help="Ray cluster to join (default: start a local one).")
    ] = None,
    run_dir: Annotated[
        Path | None,
        Option(
            help="Eval run folder; an existing one is resumed (default: .torchport/evals/<time>)."
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        Option(min=1, help="Seconds per case and target (default: 6 × the task's timeout_s)."),
    ] = None,
    json_path: Annotated[
        Path | None, Option("--json", help="Also write the JSON report here.")
    ] = None,
    markdown: Annotated[Path | None, Option(help="Also write the markdown report here.")] = None,
    plot: Annotated[Path | None, Option(help="Also write the PNG chart here.")] = None,
    compare: Annotated[
        tuple[Path, Path] | None,
        Option(help="Compare two eval run folders (RUN_A RUN_B) instead of running."),
    ] = None,
    manifest: Annotated[
        Path | None, Option(help="External task manifest (TOML) to clone and run.")
    ] = None,
) -> int:
    """Measure torchport over a suite of benchmark repositories.

    Runs `agent fix` on a fresh copy of every case for every target and reports verdicts (against
    the expected ones), iterations, times, tokens and what rules vs the LLM fixed, as JSON,
    markdown and a chart. Exit 0 when every case reached its expected verdict, 1 on a
    regression, 6 when only the infrastructure failed.
    """
    if compare is not None:
        return _compare(compare, json_path, markdown)
    from evals.harness import EvalOptions, run_eval
    from evals.tasks import SUITE_DIR

    cli = state_of(ctx)
    options = EvalOptions(
        run_dir=run_dir or DEFAULT_RUNS / f"{datetime.now(UTC):%Y%m%d-%H%M%S}",
        suite=suite or (None if manifest else SUITE_DIR),
        cases=cases,
        targets=parse_targets(targets),
        manifest=manifest,
        no_llm=no_llm,
        model=model,
        base_url=base_url,
        sandbox=sandbox,
        jobs=jobs,
        executor=executor,
        ray_address=ray_address,
        timeout_s=timeout,
    )
    run = run_eval(options, cli.env, quiet=cli.verbosity < 0)
    for source, copy in (
        (run.layout.report_json, json_path),
        (run.layout.report_md, markdown),
        (run.layout.plot, plot),
    ):
        if copy is not None:
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, copy)
    _print_summary(run.report, run.layout.root)
    return int(run.status)


def parse_targets(text: str) -> tuple[Target, ...]:
    """`tpu,neuron` → (Target.TPU, Target.NEURON); BAD_INPUT for an unknown one."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    known = ", ".join(str(target) for target in Target)
    if not names:
        raise BadInputError("--targets names no target", hint=f"choose from {known}")
    unknown = [name for name in names if name not in {str(target) for target in Target}]
    if unknown:
        raise BadInputError(
            f"--targets: unknown target(s) {', '.join(unknown)}",
            hint=f"choose from {known}, comma-separated",
        )
    return tuple(dict.fromkeys(Target(name) for name in names))


def _print_summary(report: dict[str, Any], folder: Path) -> None:
    summary = report["summary"]
    console = stdout()
    rate = summary["pass_rate"]
    console.print(
        f"{summary['passed']}/{summary['cases']} as expected"
        + (f" ({100 * rate:.0f}% of judged)" if rate is not None else "")
        + f"; {summary['failed']} wrong verdict, {summary['timeouts']} timeout, "
        f"{summary['crashes']} crash, {summary['infra']} infrastructure"
    )
    for key in summary["regressions"]:
        console.print(f"regression: {key}", style="red")
    for key in summary["infra_failures"]:
        console.print(f"infrastructure failure: {key}", style="yellow")
    console.print(f"report: {folder / 'EVAL_REPORT.md'} (resume with --run-dir {folder})")


def _compare(runs: tuple[Path, Path], json_path: Path | None, markdown: Path | None) -> int:
    from evals.harness import compare_runs, render_comparison

    comparison = compare_runs(*runs)
    text = render_comparison(comparison)
    if json_path is not None:
        json_path.write_text(json.dumps(comparison, indent=1) + "\n", encoding="utf-8")
    if markdown is not None:
        markdown.write_text(text, encoding="utf-8")
    typer.echo(text, nl=False)
    return int(ExitStatus.NO_PARITY if comparison["regressed"] else ExitStatus.SUCCESS)
