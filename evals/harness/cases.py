"""What an eval runs: suite cases and external tasks, and the verdict each should reach."""

import fnmatch
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent.errors import BadInputError
from agent.settings import Target
from evals.tasks import ExpectedVerdict, ExternalTask, TaskFields, TaskSpec, load_manifest
from evals.tasks import load_suite as load_suite_tasks


@dataclass(frozen=True)
class Expectation:
    """The verdict a correct run reaches for one target, and why when it is `manual`."""

    verdict: ExpectedVerdict
    why: str = ""


@dataclass(frozen=True)
class EvalCase:
    """One task of the eval: a suite case (`TaskSpec` over its folder) or a manifest entry
    (`ExternalTask`, cloned by the harness; `manifest` is the file it came from)."""

    task: TaskSpec | ExternalTask
    manifest: Path | None = None

    @property
    def name(self) -> str:
        return self.task.name

    @property
    def origin(self) -> Literal["suite", "external"]:
        return "external" if isinstance(self.task, ExternalTask) else "suite"

    def expectation(self, target: Target, *, llm: bool) -> Expectation:
        """What this case should reach on `target`, with or without an LLM, on this machine."""
        return expectation_of(self.task, target, llm=llm)


def missing_modules(task: TaskFields) -> list[str]:
    """The modules the task's reference requires that this interpreter cannot import."""
    return [name for name in task.reference.requires if importlib.util.find_spec(name) is None]


def expectation_of(task: TaskFields, target: Target, *, llm: bool) -> Expectation:
    """`task.expected_verdict` with the reason behind a `manual`."""
    missing = missing_modules(task)
    verdict = task.expected_verdict(target, llm=llm, reference_available=not missing)
    if verdict == "parity":
        return Expectation("parity")
    if missing:
        return Expectation(verdict, f"no reference without {', '.join(missing)}")
    if task.needs_llm and not llm and task.expected.verdict(target) == "parity":
        return Expectation(verdict, "needs an LLM (run with --no-llm or no model)")
    return Expectation(verdict, task.expected.reasons.get(target, ""))


def collect_cases(suite: Path | None, manifest: Path | None, cases: str = "*") -> list[EvalCase]:
    """The suite's cases and the manifest's tasks whose names match one of the comma-separated
    globs in `cases`."""
    chosen: list[EvalCase] = []
    if suite is not None:
        chosen += [EvalCase(spec) for spec in load_suite_tasks(suite)]
    if manifest is not None:
        chosen += [EvalCase(entry, manifest) for entry in load_manifest(manifest)]
    globs = [glob.strip() for glob in cases.split(",") if glob.strip()]
    selected = [c for c in chosen if any(fnmatch.fnmatch(c.name, glob) for glob in globs)]
    names = [case.name for case in selected]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise BadInputError(
            f"case names {twice} are both in the suite and in {manifest}",
            hint="rename the manifest's tasks",
        )
    if not selected:
        raise BadInputError(
            f"no case matches {cases!r}",
            hint="cases: " + (", ".join(case.name for case in chosen) or "none"),
        )
    return sorted(selected, key=lambda case: case.name)
