"""Benchmark task specs: the `task.toml` of each suite case and external task manifests.

`load_suite()` / `load_task(folder)` read and validate suite cases, `load_manifest(path)` reads an
external task set; `TAGS` and `REQUIRED_TAGS` are the pattern-tag vocabulary.
"""

from evals.tasks.loading import SUITE_DIR, TASK_FILE, load_suite, load_task
from evals.tasks.manifest import ExternalTask, load_manifest
from evals.tasks.spec import (
    Expected,
    ExpectedVerdict,
    ReferenceSpec,
    TaskFields,
    TaskSpec,
)
from evals.tasks.vocabulary import REQUIRED_TAGS, TAGS, Tag

__all__ = [
    "REQUIRED_TAGS",
    "SUITE_DIR",
    "TAGS",
    "TASK_FILE",
    "Expected",
    "ExpectedVerdict",
    "ExternalTask",
    "ReferenceSpec",
    "Tag",
    "TaskFields",
    "TaskSpec",
    "load_manifest",
    "load_suite",
    "load_task",
]
