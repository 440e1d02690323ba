"""The typed task spec: what one benchmark case runs, what it is expected to reach, how to compare.

The same fields describe a suite case (`task.toml` in the case's folder, `TaskSpec`) and an entry
of an external manifest (`ExternalTask`, which adds where to clone the repo from).
"""

import fnmatch
import re
import shlex
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agent.settings import Target
from evals.tasks.vocabulary import TAGS
from tools.parity.spec import ParitySpec

Difficulty = Literal["easy", "medium", "hard"]
ExpectedVerdict = Literal["parity", "manual"]
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
PROBE_KINDS = ("print:", "save:", "backward")
RUN_PREFIX = re.compile(r"^(?:(?:cmd|rank)(?:\d+|\*)/)+")
"""Probes of a multi-command task are named `cmd<i>/…` (and `rank<r>/…` under torchrun)."""
"""How probe names start (`tools.parity`): printed numbers, saved tensors, the loss trajectory."""


class StrictModel(BaseModel):
    """Unknown keys are errors; specs are immutable once loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Expected(StrictModel):
    """The verdict a correct migration reaches per target, and why when it is `manual`."""

    tpu: ExpectedVerdict
    neuron: ExpectedVerdict
    agnostic: ExpectedVerdict
    reasons: dict[Target, str] = Field(default_factory=dict)
    """Why a target is `manual`: required for each `manual` target, refused for the others."""
    no_llm: dict[Target, ExpectedVerdict] = Field(default_factory=dict)
    """Verdicts with `--no-llm`, for tasks that need the LLM (default: `manual` everywhere)."""

    def verdict(self, target: Target) -> ExpectedVerdict:
        """The expected verdict for `target` with an LLM."""
        verdicts = {
            Target.TPU: self.tpu,
            Target.NEURON: self.neuron,
            Target.AGNOSTIC: self.agnostic,
        }
        return verdicts[Target(target)]

    @model_validator(mode="after")
    def _reasons_match_manual(self) -> "Expected":
        for target in Target:
            manual = self.verdict(target) == "manual"
            reason = self.reasons.get(target, "").strip()
            if manual and not reason:
                raise ValueError(
                    f"target {target} is expected 'manual': say why in reasons.{target}"
                )
            if not manual and target in self.reasons:
                raise ValueError(f"reasons.{target} is given but {target} is expected 'parity'")
        return self


class ReferenceSpec(StrictModel):
    """What the CPU reference run needs beyond torch, and why (cases it cannot always emulate)."""

    requires: list[str] = Field(default_factory=list)
    """Python modules the original imports unconditionally (e.g. `triton`)."""
    reason: str = ""
    """What happens without them: the reference is unavailable and the verdict is `manual`."""
    notes: str = ""
    """What the CPU reference runs differently from a GPU (e.g. an extension's fallback path)."""

    @model_validator(mode="after")
    def _reason_for_requires(self) -> "ReferenceSpec":
        if self.requires and not self.reason.strip():
            raise ValueError("requires is given: say in reason what the reference lacks without it")
        return self


class TaskFields(StrictModel):
    """The fields every task has, wherever its code comes from."""

    name: str
    description: str = Field(min_length=1)
    difficulty: Difficulty
    tags: list[str] = Field(min_length=1)
    needs_llm: bool
    setup: list[str] = Field(default_factory=list)
    """Commands run once before the reference (installs, data generation)."""
    run: list[str] = Field(min_length=1)
    """Commands that exercise the repo, run in order from its root."""
    timeout_s: int = Field(gt=0, le=3600)
    """Limit for all run commands together, on the reference runtime."""
    expected: Expected
    parity: ParitySpec = Field(default_factory=ParitySpec)
    reference: ReferenceSpec = Field(default_factory=ReferenceSpec)

    @field_validator("name")
    @classmethod
    def _name_shape(cls, name: str) -> str:
        if not NAME_PATTERN.match(name):
            raise ValueError(f"{name!r} must be lower_snake_case (letters, digits, _)")
        return name

    @field_validator("tags")
    @classmethod
    def _known_tags(cls, tags: list[str]) -> list[str]:
        unknown = [tag for tag in tags if tag not in TAGS]
        if unknown:
            raise ValueError(f"unknown tags {unknown}; evals/tasks/README.md lists the vocabulary")
        if len(set(tags)) != len(tags):
            raise ValueError("a tag is listed twice")
        return tags

    @field_validator("setup", "run")
    @classmethod
    def _commands_parse(cls, commands: list[str]) -> list[str]:
        for command in commands:
            try:
                words = shlex.split(command)
            except ValueError as exc:
                raise ValueError(f"{command!r} does not parse as a shell command: {exc}") from exc
            if not words:
                raise ValueError("a command is empty")
        return commands

    @model_validator(mode="after")
    def _no_llm_only_when_needed(self) -> "TaskFields":
        if self.expected.no_llm and not self.needs_llm:
            raise ValueError("expected.no_llm is only for tasks with needs_llm = true")
        return self

    @model_validator(mode="after")
    def _one_group_per_pattern(self) -> "TaskFields":
        for pattern in self.parity.print_patterns:
            groups = re.compile(pattern).groups
            if groups != 1:
                raise ValueError(
                    f"parity.print_patterns: {pattern!r} has {groups} groups; give one"
                )
        return self

    @model_validator(mode="after")
    def _tolerances_match_probes(self) -> "TaskFields":
        printed = [f"print:{pattern}" for pattern in self.parity.print_patterns]
        for glob in self.parity.tolerances:
            name = RUN_PREFIX.sub("", glob)
            if not name.startswith(PROBE_KINDS):
                raise ValueError(
                    f"parity.tolerances.{glob}: probe names start with print:, save: or backward "
                    "(after a cmd<i>/ or rank<r>/ prefix)"
                )
            if name.startswith("print:") and not any(fnmatch.fnmatchcase(p, name) for p in printed):
                raise ValueError(
                    f"parity.tolerances.{glob} matches no print pattern "
                    "(print probes are named print:<the regex>)"
                )
        return self

    def expected_verdict(
        self, target: Target, *, llm: bool = True, reference_available: bool = True
    ) -> ExpectedVerdict:
        """What a correct run of the agent reaches for `target` in the given conditions."""
        if not reference_available:
            return "manual"
        if llm or not self.needs_llm:
            return self.expected.verdict(target)
        return self.expected.no_llm.get(target, "manual")


class TaskSpec(TaskFields):
    """A task whose code is a folder on disk (`root`), read from its `task.toml`."""

    root: Path

    def scripts(self) -> list[str]:
        """The `.py` files the run and setup commands name (relative to `root`)."""
        words = [word for command in [*self.setup, *self.run] for word in shlex.split(command)]
        return [word for word in words if word.endswith(".py")]
