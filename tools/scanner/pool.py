"""Run a function over work items on all cores (a process pool), or inline when small."""

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parallel_map(
    function: Callable[[Item], Result], items: Sequence[Item], *, jobs: int | None = None
) -> list[Result]:
    """`[function(item) for item in items]`, in processes when there is more than one job.

    Workers come from a fork server (not a fork of a possibly multi-threaded caller; `spawn`
    where there is none); the function must be importable at module level and items/results
    picklable.
    """
    workers = min(jobs or cores(), len(items))
    if workers <= 1:
        return [function(item) for item in items]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(function, items))


def balanced_chunks(items: Sequence[Item], sizes: Sequence[int], chunks: int) -> list[list[Item]]:
    """`items` dealt into at most `chunks` lists of similar total size (largest first)."""
    order = sorted(range(len(items)), key=lambda index: -sizes[index])
    buckets: list[list[Item]] = [[] for _ in range(max(1, min(chunks, len(items))))]
    totals = [0] * len(buckets)
    for index in order:
        smallest = totals.index(min(totals))
        buckets[smallest].append(items[index])
        totals[smallest] += sizes[index]
    return [bucket for bucket in buckets if bucket]
