"""The typed task spec: what one benchmark case runs, what it is expected to reach, how to compare.

The same fields describe a suite case (`task.toml` in the case's folder, `TaskSpec`) and an entry
of an external manifest (`ExternalTask`, which adds where to clone the repo from).
"""

import re
import shlex
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agent.settings import ParitySettings, Target
from evals.tasks.vocabulary import TAGS

Difficulty = Literal["easy", "medium", "hard"]
ExpectedVerdict = Literal["parity", "manual"]
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
BACKWARD_PROBE = "backward"
"""The probe holding the scalar of every `backward()` call (the loss trajectory)."""


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
        return {Target.TPU: self.tpu, Target.NEURON: self.neuron, Target.AGNOSTIC: self.agnostic}[
            target
        ]

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


class ProbeTolerance(StrictModel):
    """Tolerances for one probe (either may be left to the run-wide default)."""

    rtol: float | None = Field(None, ge=0)
    atol: float | None = Field(None, ge=0)


class ParitySpec(StrictModel):
    """How the migrated outputs are compared with the reference (maps onto ParitySettings)."""

    print_patterns: list[str] = Field(default_factory=list)
    """Regexes with exactly one group; the probe is named by the group's name, else the regex."""
    rtol: float | None = Field(None, ge=0)
    atol: float | None = Field(None, ge=0)
    tolerances: dict[str, ProbeTolerance] = Field(default_factory=dict)
    """Per probe: a print-pattern probe name, `backward`, or a saved file `out.pt[:key]` (globs)."""
    protected: list[str] = Field(default_factory=list)
    """Globs of files a migration must not change (on top of tests and the task spec)."""

    @field_validator("print_patterns")
    @classmethod
    def _one_group_each(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a regex: {exc}") from exc
            if compiled.groups != 1:
                raise ValueError(f"{pattern!r} has {compiled.groups} groups; give exactly one")
        return patterns

    def probe_names(self) -> list[str]:
        """The name of each print-pattern probe, in order."""
        names = []
        for pattern in self.print_patterns:
            group_names = list(re.compile(pattern).groupindex)
            names.append(group_names[0] if group_names else pattern)
        return names

    @model_validator(mode="after")
    def _tolerances_name_probes(self) -> "ParitySpec":
        known = {*self.probe_names(), BACKWARD_PROBE}
        for key in self.tolerances:
            if key not in known and ".pt" not in key:
                raise ValueError(
                    f"tolerances.{key} names no probe; use one of {sorted(known)} "
                    "or a saved file such as 'model.pt' or 'model.pt:fc.weight'"
                )
        return self

    def to_settings(self) -> ParitySettings:
        """The same comparison as the agent's `[parity]` settings section."""
        values: dict[str, object] = {
            "print_patterns": list(self.print_patterns),
            "protected": list(self.protected),
            "tolerances": {
                probe: tolerance.model_dump(exclude_none=True)
                for probe, tolerance in self.tolerances.items()
            },
        }
        if self.rtol is not None:
            values["rtol"] = self.rtol
        if self.atol is not None:
            values["atol"] = self.atol
        return ParitySettings.model_validate(values)


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
