"""The local executor: up to `jobs` cases at a time, each driving its own `agent fix` processes.

The work is in the child processes (one `agent fix` per case and target, each a session of its
own), so a thread per running case is enough to drive them; on Ctrl-C every running child is
stopped before the interrupt goes on.
"""

import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from evals.harness.results import CaseResult
from evals.harness.runner import CaseWork, ResultSink, run_case


def run_local(works: Sequence[CaseWork], *, jobs: int, on_result: ResultSink) -> None:
    """Run every case of `works`, `jobs` at a time; results go to `on_result` as they come."""
    cancel = threading.Event()
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="eval-case")
    pending: set[Future[list[CaseResult]]] = {
        pool.submit(run_case, work, on_result, cancel) for work in works
    }
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                future.result()  # a failure here is a harness bug: let it surface
    except BaseException:
        cancel.set()  # running children are stopped (SIGINT, then SIGKILL) by their threads
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
