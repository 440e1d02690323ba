"""What a run needs besides its state: the request, settings, sandbox, model and run folder.

The context is not checkpointed; a resumed run rebuilds it from `request.json` and the settings.
"""

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent.llm import Model
from agent.run_folder import RunFolder
from agent.settings import Settings, Target
from sandbox.types import Sandbox


@dataclass(frozen=True)
class FixRequest:
    """What the user asked `agent fix` to do (saved to the run folder for `--resume`)."""

    repo_root: Path
    target: Target
    commands: list[str]
    overrides: dict[str, Any] = field(default_factory=dict)
    """The CLI's settings overrides, re-applied on resume."""
    plan_only: bool = False
    output: Path | None = None
    deliver: bool = True
    """Create the `torchport/<target>` branch in the repository when the run ends."""
    branch: str | None = None
    force: bool = False
    open_pr: bool = False
    remote: str = "origin"
    base_branch: str | None = None
    labels: list[str] = field(default_factory=list)
    repo_slug: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form for `request.json`."""
        data = asdict(self)
        data["repo_root"] = str(self.repo_root)
        data["target"] = str(self.target)
        data["output"] = str(self.output) if self.output else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FixRequest":
        """Inverse of `to_json`."""
        values = dict(data)
        values["repo_root"] = Path(values["repo_root"])
        values["target"] = Target(values["target"])
        values["output"] = Path(values["output"]) if values.get("output") else None
        return cls(**values)


Progress = Callable[[str, str], None]
"""`progress(node, message)`: shows what the run is doing (the CLI draws it with rich)."""


def no_progress(node: str, message: str) -> None:
    """The default progress sink: nothing shown."""


@dataclass
class FixContext:
    """The run-scoped dependencies every node can use."""

    request: FixRequest
    settings: Settings
    folder: RunFolder
    sandbox: Sandbox
    model: Model | None
    progress: Progress = no_progress
    env: Mapping[str, str] = field(default_factory=dict)
    """The environment the command runs in (GitHub tokens come from here)."""
