"""The Ray executor: each case is a Ray task running the same `run_case` as the local executor.

`ray.init()` starts a local Ray instance with `jobs` CPUs (one per case at a time), or joins the
cluster at `address`. On a cluster, torchport must be installed on every node, and the run folder
should be on a filesystem the nodes share (the results themselves come back to this process).
"""

from collections.abc import Sequence
from typing import Any

from agent.errors import BadInputError
from agent.log import get_logger
from evals.harness.metrics import infra_result, result_header
from evals.harness.results import CaseResult
from evals.harness.runner import CaseWork, ResultSink, run_case

log = get_logger(__name__)


def run_on_ray(
    works: Sequence[CaseWork], *, jobs: int, address: str | None, on_result: ResultSink
) -> None:
    """Run every case of `works` as a Ray task; results go to `on_result` as tasks finish."""
    ray = require_ray()
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    remote_case = ray.remote(num_cpus=1, max_retries=0)(run_case)
    pending = {remote_case.remote(work): work for work in works}
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                work = pending.pop(ref)
                for result in _results_of(ray, ref, work):
                    on_result(result)
    except BaseException:
        for ref in pending:
            ray.cancel(ref)  # a KeyboardInterrupt in the task: run_child stops its process
        raise
    finally:
        if started_here:
            ray.shutdown()


def _results_of(ray: Any, ref: Any, work: CaseWork) -> list[CaseResult]:
    """The task's results; when the task itself failed (worker lost, harness bug), an `infra`
    result for each of its targets."""
    try:
        results: list[CaseResult] = ray.get(ref)
    except ray.exceptions.RayError as exc:
        log.error("Ray task for %s failed: %s", work.case.name, exc)
        why = f"the Ray task failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        llm = work.config.llm
        return [
            infra_result(result_header(work.case, t, work.case.expectation(t, llm=llm)), why)
            for t in work.targets
        ]
    return results


def require_ray() -> Any:
    """The ray module; BadInputError saying what to install when it is missing."""
    try:
        import ray
    except ImportError as exc:
        raise BadInputError(
            "--executor ray needs the ray package, which is not installed",
            hint="pip install 'torchport[ray]', or use --executor local",
        ) from exc
    return ray
