"""The folder every `agent fix` run leaves: `.torchport/runs/<run_id>/` beside the repo.

It holds the request (for `--resume`), the LangGraph checkpoints, the trajectory (saved after each
node), the plan, the reports, the diff, each sandbox run's logs, the original tree and the
workspace.
"""

import json
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.errors import BadInputError

TRAJECTORY_VERSION = 1
REPORT_VERSION = 1


def new_run_id() -> str:
    """A sortable, unique run id: `20261129-235959-a1b2`."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def default_runs_base(repo_root: Path) -> Path:
    """Where runs go when no `--run-dir` is given: beside the repository, never inside it."""
    return repo_root.parent / ".torchport" / "runs"


@dataclass(frozen=True)
class RunFolder:
    """Paths inside one run's folder."""

    path: Path

    @property
    def run_id(self) -> str:
        """The folder's name is the run id."""
        return self.path.name

    @property
    def request(self) -> Path:
        return self.path / "request.json"

    @property
    def checkpoints(self) -> Path:
        return self.path / "checkpoints.sqlite"

    @property
    def trajectory(self) -> Path:
        return self.path / "trajectory.json"

    @property
    def plan(self) -> Path:
        return self.path / "plan.json"

    @property
    def report_json(self) -> Path:
        return self.path / "report.json"

    @property
    def report_md(self) -> Path:
        return self.path / "MIGRATION_REPORT.md"

    @property
    def diff(self) -> Path:
        return self.path / "migration.diff"

    @property
    def logs(self) -> Path:
        return self.path / "logs"

    @property
    def original(self) -> Path:
        return self.path / "original"

    @property
    def workspace(self) -> Path:
        return self.path / "workspace"

    @property
    def cache(self) -> Path:
        """Shared between runs of the same repository (reference outputs)."""
        return self.path.parent.parent / "cache"

    @classmethod
    def create(cls, base: Path, run_id: str) -> "RunFolder":
        """Make a new, empty run folder under `base`."""
        path = base / run_id
        if path.exists():
            raise BadInputError(
                f"run folder {path} already exists", hint="use --resume to continue it"
            )
        (path / "logs").mkdir(parents=True)
        return cls(path)

    @classmethod
    def find(cls, base: Path, run_id: str) -> "RunFolder":
        """The existing folder of `run_id` under `base` (for `--resume`)."""
        path = base / run_id
        if not (path / "request.json").is_file():
            known = sorted(p.parent.name for p in base.glob("*/request.json"))
            hint = (
                f"recent runs in {base}: {', '.join(known[-5:])}" if known else f"no runs in {base}"
            )
            raise BadInputError(f"no run {run_id!r} to resume", hint=hint)
        return cls(path)

    def write_json(self, path: Path, data: Any) -> None:
        """Write `data` as JSON atomically (a reader never sees half a file)."""
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
        tmp.replace(path)

    def read_json(self, path: Path) -> Any:
        """Read a JSON file of this folder."""
        return json.loads(path.read_text(encoding="utf-8"))


class Trajectory:
    """The event log of a run, saved after every node; a resumed run appends to it."""

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self.data: dict[str, Any] = {
            "version": TRAJECTORY_VERSION,
            "run_id": folder.run_id,
            "events": [],
        }
        if folder.trajectory.is_file():
            self.data = folder.read_json(folder.trajectory)

    def record(self, node: str, update: dict[str, Any], summary: str) -> None:
        """Append one completed node with a one-line summary and the keys it changed."""
        self.data["events"].append(
            {
                "node": node,
                "finished_at": time.time(),
                "iteration": update.get("iteration"),
                "summary": summary,
                "changed": sorted(update),
            }
        )
        self.folder.write_json(self.folder.trajectory, self.data)

    def note(self, kind: str, message: str) -> None:
        """Record something that is not a node (start, resume, delivery)."""
        self.data["events"].append({"node": kind, "finished_at": time.time(), "summary": message})
        self.folder.write_json(self.folder.trajectory, self.data)

    @property
    def events(self) -> list[dict[str, Any]]:
        """All events so far."""
        events: list[dict[str, Any]] = self.data["events"]
        return events
