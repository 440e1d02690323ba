"""External task sets: a TOML manifest of public repos, each pinned to a commit, with the same
fields as a suite case (run commands, probes, tolerances, expected verdicts).

```toml
[[task]]
name = "tiny_gpt"
repo = "https://github.com/owner/tiny-gpt"
commit = "0123456789abcdef0123456789abcdef01234567"
description = "a small GPT trained with bf16 autocast on CUDA"
subdir = ""                      # folder of the repo the commands run in (default: its root)
setup = ["pip install -r requirements.txt"]
run = ["python train.py --max-iters 20"]
timeout_s = 900
difficulty = "medium"
tags = ["device-string", "bf16-autocast"]
needs_llm = true
[task.expected]
tpu = "parity"
neuron = "parity"
agnostic = "parity"
[task.parity]
print_patterns = ['iter \\d+: loss (?P<loss>[0-9.]+)']
```

Cloning is the harness's job; `ExternalTask.at(checkout)` turns an entry into a TaskSpec once the
repo is on disk.
"""

import re
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import Field, field_validator, model_validator

from agent.errors import BadInputError
from evals.tasks.loading import SCHEMA_HINT, check_files, read_toml, validate_model
from evals.tasks.spec import StrictModel, TaskFields, TaskSpec

COMMIT_PATTERN = re.compile(r"^[0-9a-f]{7,40}$")
REPO_PATTERN = re.compile(r"^(https?://\S+|ssh://\S+|git@[\w.-]+:\S+|file://\S+|/\S+)$")


class ExternalTask(TaskFields):
    """One manifest entry: where the code comes from, and the task fields."""

    repo: str
    """Clone URL (https, ssh, git@host:path, file://) or an absolute local path."""
    commit: str
    """The commit to check out: 7 to 40 lowercase hex digits."""
    subdir: str = ""
    """The folder of the repo the commands run in, relative to its root."""

    @field_validator("repo")
    @classmethod
    def _repo_shape(cls, repo: str) -> str:
        if not REPO_PATTERN.match(repo):
            raise ValueError(f"{repo!r} is not a clone URL or an absolute path")
        return repo

    @field_validator("commit")
    @classmethod
    def _commit_shape(cls, commit: str) -> str:
        if not COMMIT_PATTERN.match(commit):
            raise ValueError(f"{commit!r} is not a commit hash (7 to 40 lowercase hex digits)")
        return commit

    @field_validator("subdir")
    @classmethod
    def _subdir_inside(cls, subdir: str) -> str:
        parts = PurePosixPath(subdir).parts
        if subdir.startswith("/") or ".." in parts:
            raise ValueError(f"{subdir!r} must be a relative path inside the repo")
        return subdir

    def at(self, checkout: Path, *, manifest: Path) -> TaskSpec:
        """The task as a TaskSpec over `checkout` (the cloned repo at `commit`)."""
        fields = self.model_dump(exclude={"repo", "commit", "subdir"})
        root = (checkout / self.subdir).resolve()
        if not root.is_dir():
            raise BadInputError(
                f"{manifest}: task {self.name!r}: subdir {self.subdir!r} is not in the checkout",
                hint="fix subdir or the commit",
            )
        spec = TaskSpec.model_validate({**fields, "root": root})
        check_files(spec, manifest, check_name=False)
        return spec


class _Manifest(StrictModel):
    task: list[ExternalTask] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> "_Manifest":
        names = [task.name for task in self.task]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"task names must be unique; repeated: {twice}")
        return self


def load_manifest(path: Path) -> list[ExternalTask]:
    """The validated entries of an external task manifest."""
    data: dict[str, Any] = read_toml(path)
    if "task" not in data:
        raise BadInputError(f"{path}: no [[task]] entries", hint=SCHEMA_HINT)
    return validate_model(_Manifest, data, path).task
