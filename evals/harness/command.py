"""The `agent fix` command line and environment the harness runs a case with."""

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent.settings import Target
from evals.tasks import TaskSpec

TIMEOUT_FACTOR = 6
"""Without --timeout, a case may run this many times its task's timeout_s (which bounds one run
of its commands): the reference and its reruns, then the agent's iterations."""


@dataclass(frozen=True)
class RunConfig:
    """How every case of an eval is run."""

    llm: bool
    """Whether `agent fix` has a model (decides the expected verdict of needs_llm tasks)."""
    no_llm: bool = False
    model: str | None = None
    base_url: str | None = None
    sandbox: Literal["auto", "docker", "local"] | None = None
    timeout_s: float | None = None
    """--timeout: the limit for every case, in seconds (else TIMEOUT_FACTOR × its timeout_s)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """The environment `agent fix` runs in (the eval's own)."""

    def limit_s(self, spec: TaskSpec) -> float:
        """How long one (case, target) may run before the harness kills it."""
        return self.timeout_s if self.timeout_s is not None else TIMEOUT_FACTOR * spec.timeout_s


def fix_argv(
    path: Path, target: Target, spec: TaskSpec, config: RunConfig, runs: Path
) -> list[str]:
    """`python -m agent.cli fix PATH --target T --run ... --run-dir RUNS --no-branch ...`."""
    argv = [sys.executable, "-m", "agent.cli", "fix", str(path), "--target", str(target)]
    for command in spec.run:
        argv += ["--run", command]
    argv += ["--run-dir", str(runs), "--no-branch"]
    if config.no_llm:
        argv.append("--no-llm")
    if config.model:
        argv += ["--model", config.model]
    if config.base_url:
        argv += ["--base-url", config.base_url]
    if config.sandbox:
        argv += ["--sandbox", config.sandbox]
    return argv


def fix_env(spec: TaskSpec, config: RunConfig) -> dict[str, str]:
    """The eval's environment plus the task's parity spec and per-run time limit as settings
    (`TORCHPORT_PARITY`, `TORCHPORT_SANDBOX__TIMEOUT_S`: above the repo's config, below flags)."""
    parity = spec.parity.model_dump(mode="json", exclude_unset=True)
    return {
        **config.env,
        "TORCHPORT_PARITY": json.dumps(parity),
        "TORCHPORT_SANDBOX__TIMEOUT_S": str(spec.timeout_s),
    }


def write_command(
    path: Path, argv: list[str], env: Mapping[str, str], base: Mapping[str, str]
) -> None:
    """Record the command and the variables the harness added, to rerun a case by hand."""
    added = {key: value for key, value in env.items() if base.get(key) != value}
    path.write_text(json.dumps({"argv": argv, "env": added}, indent=1) + "\n", encoding="utf-8")
