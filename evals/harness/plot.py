"""eval.png: pass rate per target and difficulty, and the time of every case split into the
reference, the target runs and the agent's own time (matplotlib's Agg canvas, no display)."""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from evals.harness.results import CaseResult

OUTCOME_COLORS = {
    "pass": "#2e7d32",
    "fail": "#c62828",
    "timeout": "#ef6c00",
    "crash": "#6a1b9a",
    "infra": "#757575",
}
ROW_INCHES = 0.28


def plot_eval(results: Sequence[CaseResult], summary: dict[str, Any], path: Path) -> Path:
    """Draw the chart of an eval and save it as a PNG at `path`."""
    height = max(4.0, 1.5 + ROW_INCHES * len(results))
    figure = Figure(figsize=(13, height), layout="constrained")
    FigureCanvasAgg(figure)
    rates, times = figure.subplots(1, 2, width_ratios=[1, 2.2])
    _pass_rates(rates, summary)
    _times(times, results)
    figure.suptitle(
        f"torchport eval: {summary['passed']}/{summary['cases']} cases as expected "
        f"({summary['infra']} infrastructure failures)"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


def _pass_rates(axes: Axes, summary: dict[str, Any]) -> None:
    groups = [("target", summary["by_target"]), ("difficulty", summary["by_difficulty"])]
    labels, values, counts = [], [], []
    for title, table in groups:
        for name, group in table.items():
            labels.append(f"{title}: {name}")
            values.append(100 * (group["pass_rate"] or 0.0))
            counts.append(f"{group['passed']}/{group['cases'] - group['infra']}")
    bars = axes.barh(labels, values, color="#1565c0")
    axes.bar_label(bars, labels=counts, padding=3)
    axes.set_xlim(0, 115)
    axes.invert_yaxis()
    axes.set_xlabel("pass rate (%)")
    axes.set_title("cases reaching their expected verdict")


def _times(axes: Axes, results: Sequence[CaseResult]) -> None:
    labels = [result.key for result in results]
    reference = [result.reference_s or 0.0 for result in results]
    target = [result.target_s or 0.0 for result in results]
    agent = [
        max(0.0, (r.wall_s or 0.0) - ref - tgt)
        for r, ref, tgt in zip(results, reference, target, strict=True)
    ]
    axes.barh(labels, reference, color="#90caf9", label="reference runs")
    axes.barh(labels, target, left=reference, color="#1e88e5", label="target runs")
    starts = [ref + tgt for ref, tgt in zip(reference, target, strict=True)]
    axes.barh(labels, agent, left=starts, color="#cfd8dc", label="agent (rest of wall time)")
    for tick, result in zip(axes.get_yticklabels(), results, strict=True):
        tick.set_color(OUTCOME_COLORS[result.outcome])
    axes.invert_yaxis()
    axes.set_xlabel(
        "wall time (s); names: green pass, red fail, orange timeout, purple crash, grey infra"
    )
    axes.set_title("time per case")
    axes.legend(loc="lower right")
