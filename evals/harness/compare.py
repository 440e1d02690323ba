"""`agent eval --compare RUN_A RUN_B`: what changed between two eval runs, case by case."""

from pathlib import Path
from typing import Any

from evals.harness.results import CaseResult, load_results
from evals.harness.summary import pass_rate

CHANGE_ORDER = ("regressed", "fixed", "changed", "only in A", "only in B", "same")


def change_of(before: CaseResult | None, after: CaseResult | None) -> str:
    """How one (case, target) moved from run A to run B."""
    if before is None:
        return "only in B"
    if after is None:
        return "only in A"
    if before.outcome == "pass" and after.outcome != "pass":
        return "regressed"
    if before.outcome != "pass" and after.outcome == "pass":
        return "fixed"
    if (before.verdict, before.outcome) != (after.verdict, after.outcome):
        return "changed"
    return "same"


def _delta(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    return round(after - before, 2)


def compare_runs(run_a: Path, run_b: Path) -> dict[str, Any]:
    """Every (case, target) of either run with its verdicts, outcomes and deltas (B − A)."""
    results_a = {r.key: r for r in load_results(run_a)}
    results_b = {r.key: r for r in load_results(run_b)}
    rows = []
    for key in sorted(results_a.keys() | results_b.keys()):
        a, b = results_a.get(key), results_b.get(key)
        rows.append(
            {
                "case": key,
                "change": change_of(a, b),
                "verdict_a": a.verdict if a else None,
                "verdict_b": b.verdict if b else None,
                "outcome_a": a.outcome if a else None,
                "outcome_b": b.outcome if b else None,
                "wall_delta_s": _delta(a.wall_s if a else None, b.wall_s if b else None),
                "tokens_delta": _delta(a.tokens if a else None, b.tokens if b else None),
                "iterations_delta": _delta(
                    a.iterations if a else None, b.iterations if b else None
                ),
            }
        )
    common = results_a.keys() & results_b.keys()
    return {
        "run_a": str(run_a),
        "run_b": str(run_b),
        "rows": rows,
        "pass_rate_a": pass_rate([results_a[k] for k in sorted(common)])["pass_rate"],
        "pass_rate_b": pass_rate([results_b[k] for k in sorted(common)])["pass_rate"],
        "regressed": [row["case"] for row in rows if row["change"] == "regressed"],
        "fixed": [row["case"] for row in rows if row["change"] == "fixed"],
        "wall_delta_s": _delta(
            sum(results_a[k].wall_s or 0.0 for k in common),
            sum(results_b[k].wall_s or 0.0 for k in common),
        ),
        "tokens_delta": sum(
            (results_b[k].tokens or 0) - (results_a[k].tokens or 0) for k in common
        ),
    }


def render_comparison(comparison: dict[str, Any]) -> str:
    """The comparison as markdown: a summary line, then the cases that changed."""

    def rate(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.0f}%"

    def signed(value: float | None) -> str:
        return "—" if value is None else f"{value:+g}"

    lines = [
        f"# {comparison['run_a']} → {comparison['run_b']}",
        "",
        f"pass rate on the cases of both runs: {rate(comparison['pass_rate_a'])} → "
        f"{rate(comparison['pass_rate_b'])}; {len(comparison['regressed'])} regressed, "
        f"{len(comparison['fixed'])} fixed; wall time {signed(comparison['wall_delta_s'])} s, "
        f"tokens {signed(comparison['tokens_delta'])}",
        "",
    ]
    changed = [row for row in comparison["rows"] if row["change"] != "same"]
    lines.append(
        f"{len(changed)} case(s) changed their verdict or outcome."
        if changed
        else "No case changed its verdict or outcome."
    )
    lines += [
        "",
        "| case | change | verdict A → B | outcome A → B | wall Δ s | tokens Δ | iterations Δ |",
        "|---|---|---|---|---|---|---|",
    ]
    ordered = sorted(comparison["rows"], key=lambda row: CHANGE_ORDER.index(row["change"]))
    lines += [
        f"| `{row['case']}` | {row['change']} | {row['verdict_a'] or '—'} → "
        f"{row['verdict_b'] or '—'} | {row['outcome_a'] or '—'} → {row['outcome_b'] or '—'} | "
        f"{signed(row['wall_delta_s'])} | {signed(row['tokens_delta'])} | "
        f"{signed(row['iterations_delta'])} |"
        for row in ordered
    ]
    return "\n".join(lines) + "\n"
