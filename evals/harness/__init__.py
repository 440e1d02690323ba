"""The evaluation harness behind `agent eval`: run `agent fix` on every benchmark case and target,
judge each run against the task's expected verdict, and report.

`run_eval(EvalOptions, env)` runs an eval; `compare_runs(a, b)` compares two. The README lists
the modules.
"""

from evals.harness.compare import compare_runs, render_comparison
from evals.harness.evaluate import EvalOptions, EvalRun, run_eval
from evals.harness.results import CaseResult, load_results

__all__ = [
    "CaseResult",
    "EvalOptions",
    "EvalRun",
    "compare_runs",
    "load_results",
    "render_comparison",
    "run_eval",
]
