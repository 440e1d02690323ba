"""What a lock-in rule is: code, category, message, explanation, targets, effort, codemods."""

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agent.settings import Target

CODE_PATTERN = re.compile(r"^TP\d{3}$")


class Category(StrEnum):
    """The fixed vocabulary of rule categories (one rule module per category)."""

    DEVICE = "device"
    RNG = "rng"
    AMP = "amp"
    BACKEND_FLAGS = "backend-flags"
    SYNC = "sync"
    MEMORY = "memory"
    DATA_LOADING = "data-loading"
    DISTRIBUTED = "distributed"
    SERIALIZATION = "serialization"
    COMPILE = "compile"
    KERNELS = "kernels"
    THIRD_PARTY = "third-party"
    DTYPE = "dtype"


class Effort(StrEnum):
    """How much a person must do: `none` = a codemod does it; `high` = needs judgement."""

    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        """0 for none up to 3 for high, for `--fail-on` comparisons."""
        return list(Effort).index(self)


class Severity(StrEnum):
    """What happens on the target when the construct is left alone (SARIF levels)."""

    ERROR = "error"  # raises: no CUDA, missing library, unsupported kernel
    WARNING = "warning"  # runs, but silently wrong, slower or on the CPU
    NOTE = "note"  # no effect off CUDA; harmless to keep but misleading


ALL_TARGETS: frozenset[Target] = frozenset(Target)
ACCELERATORS: frozenset[Target] = frozenset({Target.TPU, Target.NEURON})


@dataclass(frozen=True)
class Rule:
    """One kind of CUDA lock-in, with everything a reader or the agent needs to act on it.

    `effort` is what a site needs when no codemod fixes it (`none`: the codemod fixes every site
    for every target in `targets`). `codemods` lists the targets for which a codemod exists; a
    codemod may still decline a particular site (the finding then says `fixable: false`).
    `fix_together` names rules whose codemods must run together (a GradScaler and its calls).
    """

    code: str
    name: str
    category: Category
    message: str
    explanation: str
    before: str
    after: str
    targets: frozenset[Target]
    effort: Effort
    codemods: frozenset[Target]
    severity: Severity
    family: str = ""
    fix_together: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if not CODE_PATTERN.match(self.code):
            raise ValueError(f"rule code {self.code!r} is not TP + 3 digits")
        if "\n" in self.message:
            raise ValueError(f"{self.code}: the message must be one line")
        if not self.codemods <= self.targets:
            raise ValueError(f"{self.code}: a codemod for a target the rule does not concern")
        if self.effort is Effort.NONE and self.codemods != self.targets:
            raise ValueError(f"{self.code}: effort 'none' needs a codemod for every target")
        if not self.family:
            object.__setattr__(self, "family", self.category.value)

    def matters_for(self, target: Target) -> bool:
        """Whether the construct breaks or misbehaves on `target`."""
        return target in self.targets

    def has_codemod(self, target: Target) -> bool:
        """Whether a codemod exists for `target` (it may decline some sites)."""
        return target in self.codemods

    def to_dict(self) -> dict[str, Any]:
        """The rule as plain data (for `agent rules --json` and SARIF)."""
        return {
            "code": self.code,
            "name": self.name,
            "category": self.category.value,
            "family": self.family,
            "message": self.message,
            "explanation": self.explanation,
            "before": self.before,
            "after": self.after,
            "targets": sorted(target.value for target in self.targets),
            "effort": self.effort.value,
            "codemods": {target.value: target in self.codemods for target in Target},
            "severity": self.severity.value,
            "fix_together": sorted(self.fix_together),
        }
