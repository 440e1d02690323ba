"""The GitHub Action's entry point: action inputs (as `TORCHPORT_ACTION_*` variables) → `agent
fix` arguments; the run's verdict, report path and pull request URL → the step's outputs.

`action.yml` runs `python -m agent.action`; tests run the same entry point with the same
variables, so what the action documents is what the CLI receives.
"""

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from agent.cli import main as cli_main
from agent.errors import BadInputError

PREFIX = "TORCHPORT_ACTION_"
TARGETS = ("tpu", "neuron", "agnostic")
SANDBOXES = ("auto", "docker", "local")


def _truthy(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def fix_arguments(inputs: Mapping[str, str], run_dir: Path) -> list[str]:
    """The `agent fix` argv for the action's inputs (keys without the prefix, lower case)."""
    target = inputs.get("target", "").strip()
    if target not in TARGETS:
        raise BadInputError(f"input 'target' must be one of {', '.join(TARGETS)}, not {target!r}")
    sandbox = inputs.get("sandbox", "auto").strip() or "auto"
    if sandbox not in SANDBOXES:
        raise BadInputError(f"input 'sandbox' must be one of {', '.join(SANDBOXES)}")
    argv = ["fix", inputs.get("path", ".").strip() or ".", "--target", target]
    for command in inputs.get("run", "").splitlines():
        if command.strip():
            argv += ["--run", command.strip()]
    if inputs.get("model", "").strip():
        argv += ["--model", inputs["model"].strip()]
    else:
        argv.append("--no-llm")
    if inputs.get("base-url", "").strip():
        argv += ["--base-url", inputs["base-url"].strip()]
    if _truthy(inputs.get("open-pr", "false")):
        argv.append("--open-pr")
    argv += ["--sandbox", sandbox, "--run-dir", str(run_dir)]
    return argv


def action_inputs(env: Mapping[str, str]) -> dict[str, str]:
    """`TORCHPORT_ACTION_OPEN_PR` → `open-pr`, and so on."""
    return {
        name[len(PREFIX) :].lower().replace("_", "-"): value
        for name, value in env.items()
        if name.startswith(PREFIX)
    }


def latest_report(run_dir: Path) -> Path | None:
    """The report.json of the newest run under `run_dir`."""
    reports = sorted(run_dir.glob("*/report.json"), key=lambda path: path.parent.name)
    return reports[-1] if reports else None


def write_outputs(output_file: Path, outputs: Mapping[str, str]) -> None:
    """Append `name=value` lines to `$GITHUB_OUTPUT`."""
    with output_file.open("a", encoding="utf-8") as handle:
        for name, value in outputs.items():
            handle.write(f"{name}={value}\n")


def run_action(env: Mapping[str, str]) -> int:
    """Run `agent fix` for the action and publish its outputs; returns the exit code."""
    default_dir = Path(env.get("RUNNER_TEMP", ".")) / "torchport-runs"
    run_dir = Path(env.get("TORCHPORT_ACTION_RUN_DIR") or default_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        argv = fix_arguments(action_inputs(env), run_dir)
    except BadInputError as exc:
        sys.stderr.write(f"agent: error: {exc.one_line()}\n")
        return 2
    code = cli_main(argv, env=env)
    report = latest_report(run_dir)
    outputs = {"verdict": "error", "report-path": "", "pr-url": "", "run-dir": str(run_dir)}
    if report is not None:
        data = json.loads(report.read_text(encoding="utf-8"))
        outputs["verdict"] = data.get("verdict", "error")
        outputs["report-path"] = str(report.parent / "MIGRATION_REPORT.md")
        outputs["pr-url"] = ((data.get("delivery") or {}).get("pull_request") or {}).get("url", "")
    if env.get("GITHUB_OUTPUT"):
        write_outputs(Path(env["GITHUB_OUTPUT"]), outputs)
    return code


if __name__ == "__main__":
    sys.exit(run_action(os.environ))
