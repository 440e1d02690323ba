"""The parity task spec: which probes to add, how close is close enough, what is protected.

Loaded from `[tool.torchport.parity]` (pyproject.toml), `[parity]` in torchport.toml, a task
file's `[parity]` table, and flags. `agent.settings.ParitySettings` is this model, so the
agent's layered settings validate it too.
"""

import fnmatch
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent.errors import BadInputError

Statistic = Literal["mean", "std", "norm", "none"]
RUN_PREFIX = re.compile(r"^(?:(?:cmd|rank)\d+/)+")
"""Probes of a multi-command run are named `cmd<i>/…`, those of torchrun ranks `rank<r>/…`."""


class ProbeTolerance(BaseModel):
    """Overrides for the probes whose names match a glob (`save:*`, `print:loss*`, `backward`)."""

    model_config = ConfigDict(extra="forbid")

    rtol: float | None = Field(None, ge=0)
    atol: float | None = Field(None, ge=0)
    r_pass: float | None = Field(None, gt=0)
    r_marginal: float | None = Field(None, gt=0)
    compare: Literal["values", "statistic", "ignore"] = Field(
        "values", description="values: element by element; statistic: by `statistic`; ignore"
    )
    statistic: Statistic | None = None


class ParitySpec(BaseModel):
    """How migrated outputs are compared with the reference."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    print_patterns: list[str] = Field(
        default_factory=list, description="regexes with one group: printed numbers to record"
    )
    rtol: float = Field(1e-4, ge=0, description="relative tolerance, fp32 against fp32")
    atol: float = Field(1e-5, ge=0, description="absolute tolerance, fp32 against fp32")
    tolerances: dict[str, ProbeTolerance] = Field(
        default_factory=dict, description="per-probe overrides, keyed by name globs"
    )
    r_pass: float = Field(1.2, gt=0, description="low precision: pass while R is at most this")
    r_marginal: float = Field(2.0, gt=0, description="low precision: marginal up to this")
    low_precision_rtol: float = Field(
        5e-2, ge=0, description="bf16/fp16 tolerance when the reference has no precision reruns"
    )
    protected: list[str] = Field(
        default_factory=list, description="globs of files that must not change (added to tests)"
    )
    statistic: Statistic = Field(
        "mean", description="how ill-conditioned probes are compared; none: not comparable"
    )
    statistic_rtol: float = Field(0.05, ge=0)
    perturbation: float = Field(1e-6, gt=0, description="relative input nudge of the rerun")
    min_device_share: float = Field(
        0.5, ge=0, description="device ops of the migrated run / CUDA ops of the reference"
    )
    reference: Literal["cpu", "cuda", "golden"] = "cpu"
    golden_dir: str | None = None
    gpu_profile: str | None = Field(None, description="GPU the original ran on (default A100)")

    @field_validator("print_patterns")
    @classmethod
    def _patterns_have_a_group(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                groups = re.compile(pattern).groups
            except re.error as exc:
                raise ValueError(f"print pattern {pattern!r} is not a valid regex: {exc}") from None
            if groups < 1:
                raise ValueError(f"print pattern {pattern!r} needs one group around the number")
        return patterns

    def tolerance_for(self, probe: str) -> ProbeTolerance:
        """The merged overrides of every glob that matches `probe` (later keys win).

        A glob matches the full name (`cmd1/print:…`) or the name without its `cmd<i>/` and
        `rank<r>/` prefixes, so a task's `print:loss*` also covers the loss of its second command.
        """
        bare = RUN_PREFIX.sub("", probe)
        merged: dict[str, Any] = {}
        for glob, tolerance in self.tolerances.items():
            if fnmatch.fnmatchcase(probe, glob) or fnmatch.fnmatchcase(bare, glob):
                merged.update(tolerance.model_dump(exclude_unset=True))
        return ProbeTolerance.model_validate(merged)

    def rtol_atol(self, probe: str) -> tuple[float, float]:
        """(rtol, atol) for `probe` in fp32."""
        tolerance = self.tolerance_for(probe)
        rtol = self.rtol if tolerance.rtol is None else tolerance.rtol
        atol = self.atol if tolerance.atol is None else tolerance.atol
        return rtol, atol


def load_spec(repo: Path | None = None, overrides: Mapping[str, Any] | None = None) -> ParitySpec:
    """The spec of `repo` (`[tool.torchport.parity]`, then torchport.toml's `[parity]`) + flags.

    `overrides` with None values are ignored (flags not given). Errors name the file.
    """
    merged: dict[str, Any] = {}
    sources = []
    if repo is not None:
        for path, table in _repo_tables(repo):
            merged.update(table)
            sources.append(str(path))
    merged.update({key: value for key, value in (overrides or {}).items() if value is not None})
    try:
        return ParitySpec.model_validate(merged)
    except ValidationError as exc:
        where = " and ".join(sources) or "the command line"
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}" for error in exc.errors()
        )
        raise BadInputError(
            f"invalid parity spec in {where}: {problems}",
            hint="see tools/parity/README.md for the keys of [tool.torchport.parity]",
        ) from None


def _repo_tables(repo: Path) -> list[tuple[Path, dict[str, Any]]]:
    tables = []
    pyproject = repo / "pyproject.toml"
    if pyproject.is_file():
        table = _read(pyproject).get("tool", {}).get("torchport", {}).get("parity")
        if table:
            tables.append((pyproject, table))
    own = repo / "torchport.toml"
    if own.is_file():
        table = _read(own).get("parity")
        if table:
            tables.append((own, table))
    return tables


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path}: not valid TOML: {exc}", hint="fix the file") from None
