"""The host side of one run: a private copy of the repo, a results folder, and what comes back.

The sandboxed program only ever sees the copy (`work/`), so the caller's tree is never written.
After the run the results folder (`out/`, `TORCHPORT_RT_OUT` inside) goes to the caller's
artifacts folder and its `metrics.json`/`probes.json` are parsed.
"""

import hashlib
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from agent.errors import BadInputError
from agent.log import get_logger

log = get_logger(__name__)

SANDBOX_WORK_DIR = "/torchport/work"
"""Inside every sandbox: the repo copy, the command's working directory."""
SANDBOX_HOSTNAME = "sandbox"
"""The sandbox's own host name; torchrun and gloo resolve it, so /etc/hosts maps it to loopback."""
SANDBOX_OUT_DIR = "/torchport/out"
"""Inside every sandbox: the runtime's results folder (`TORCHPORT_RT_OUT`)."""
SANDBOX_HOME = "/tmp"
"""Inside every sandbox: HOME (a private tmpfs)."""
COPY_SKIPPED = frozenset(
    {".git", ".hg", ".svn", ".venv", ".tox", ".nox", "node_modules", "__pycache__"}
    | {".mypy_cache", ".pytest_cache", ".ruff_cache", ".torchport"}
)
"""Folder names not copied into the sandbox: version control, virtual environments, caches."""
METRICS_FILE = "metrics.json"
PROBES_FILE = "probes.json"


@dataclass
class Results:
    """What the runtime left in its results folder, moved to the host."""

    artifacts_dir: Path | None
    runtime_metrics: dict[str, Any] | None = None
    probes: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)


class Workspace:
    """A temporary folder for one run, removed on exit: `work/` (the copy) and `out/`."""

    def __init__(self, source: Path, *, parent: Path | None = None) -> None:
        self.source = source
        self.root = Path(tempfile.mkdtemp(prefix="torchport-run-", dir=parent))
        self.work = self.root / "work"
        self.out = self.root / "out"

    def __enter__(self) -> "Workspace":
        try:
            copy_tree(self.source, self.work)
            self.out.mkdir()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.remove()

    def remove(self) -> None:
        """Delete the whole temporary folder (the program may have left read-only files)."""
        shutil.rmtree(self.root, onerror=_make_writable_and_retry)

    def chown(self, uid: int, gid: int) -> None:
        """Give the copy and the results folder to the sandbox's user (needs root)."""
        for top in (self.root, self.work, self.out):
            os.lchown(top, uid, gid)
        for dirpath, dirnames, filenames in os.walk(self.work):
            for name in dirnames + filenames:
                os.lchown(Path(dirpath) / name, uid, gid)

    def collect(self, artifacts_dir: Path | None, keep_tree: Path | None = None) -> Results:
        """Move the results folder's files out and parse the runtime's JSON files; copy the work
        tree as the command left it to `keep_tree` when given."""
        if keep_tree is not None:
            copy_tree(self.work, keep_tree)
        entries = sorted(self.out.iterdir())
        if artifacts_dir is None and not entries:
            return Results(artifacts_dir=None)
        if artifacts_dir is None:
            artifacts_dir = Path(tempfile.mkdtemp(prefix="torchport-artifacts-"))
        artifacts_dir.mkdir(parents=True, exist_ok=True)
        for entry in entries:
            if entry.is_symlink():
                continue  # a link could point anywhere on the host: never follow it out
            shutil.move(entry, artifacts_dir / entry.name)
        results = Results(artifacts_dir=artifacts_dir)
        results.runtime_metrics = _read_json(artifacts_dir / METRICS_FILE, results.problems)
        results.probes = _read_json(artifacts_dir / PROBES_FILE, results.problems)
        return results


def copy_tree(source: Path, dest: Path) -> None:
    """Copy `source` to `dest`: files with their modes, symlinks as links, skipping COPY_SKIPPED
    folders and special files (pipes, sockets, devices)."""
    try:
        shutil.copytree(source, dest, symlinks=True, ignore=_skipped_names, dirs_exist_ok=True)
    except shutil.Error as exc:
        failures = "; ".join(f"{src}: {why}" for src, _dst, why in exc.args[0][:3])
        raise BadInputError(
            f"cannot copy {source} into the sandbox: {failures}",
            hint="make every file of the repository readable",
        ) from None


def _skipped_names(folder: str, names: list[str]) -> set[str]:
    skipped = set()
    for name in names:
        path = Path(folder) / name
        mode = path.lstat().st_mode
        if name in COPY_SKIPPED and stat.S_ISDIR(mode):
            skipped.add(name)
        elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            log.debug("not copied into the sandbox (special file): %s", path)
            skipped.add(name)
    return skipped


def _make_writable_and_retry(function: Any, path: str, _exc_info: Any) -> None:
    """rmtree's error handler: a folder the program made read-only is opened up, then retried."""
    parent = Path(path).parent
    parent.chmod(parent.stat().st_mode | stat.S_IWUSR | stat.S_IXUSR)
    if Path(path).is_dir() and not Path(path).is_symlink():
        Path(path).chmod(0o700)
        shutil.rmtree(path)
    else:
        function(path)


def _read_json(path: Path, problems: list[str]) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{path.name} is not valid JSON ({exc}); the run may have been cut short")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path.name} holds a {type(data).__name__}, not a JSON object")
        return None
    return data


def tree_digest(root: Path) -> str:
    """A digest of a folder's paths, file modes, contents and link targets (`.git` included)."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            info = path.lstat()
            digest.update(f"{path.relative_to(root)}\0{info.st_mode:o}\0".encode())
            if stat.S_ISLNK(info.st_mode):
                digest.update(str(path.readlink()).encode())
            elif stat.S_ISREG(info.st_mode):
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
