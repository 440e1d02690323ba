"""Sandbox run records for the agent: logs in the run folder, summaries for the state.

Every run's stdout/stderr and result (without its output) land in `logs/<label>/cmdN/`; the
state keeps a small summary that points there.
"""

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sandbox.types import RunResult

TAIL_CHARS = 4000


def save_result(result: RunResult, folder: Path, command: str) -> None:
    """Write a run's output and its result (without the output) to `folder`."""
    (folder / "stdout.txt").write_text(result.stdout, encoding="utf-8")
    (folder / "stderr.txt").write_text(result.stderr, encoding="utf-8")
    data = asdict(result)
    data.pop("stdout")
    data.pop("stderr")
    data["command"] = command
    (folder / "result.json").write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")


def summarize(results: list[RunResult], commands: list[str], label: str) -> dict[str, Any]:
    """The state's record of one round of runs."""
    last = results[-1] if results else None
    metrics = last.runtime_metrics if last and last.runtime_metrics else {}
    return {
        "label": label,
        "commands": commands[: len(results)],
        "ok": bool(results) and all(result.ok for result in results),
        "exit_code": last.exit_code if last else None,
        "timed_out": bool(last and last.timed_out),
        "oom_killed": bool(last and last.oom_killed),
        "seconds": round(sum(result.duration_s for result in results), 3),
        "backend": last.backend if last else "",
        "ops_not_lowered": list(metrics.get("ops_not_lowered", [])),
        "native_share": metrics.get("native_share"),
        "peak_device_bytes": (metrics.get("memory") or {}).get("peak_bytes"),
    }


def output_tail(result: RunResult) -> str:
    """The end of a run's combined output, for prompts and reports."""
    text = (result.stdout + "\n" + result.stderr).strip()
    return text[-TAIL_CHARS:]
