"""The runtime root: the only torchport code that goes into a sandbox.

It holds `sandbox/__init__.py`, `sandbox/runtime/` and `sandbox/kernels/` (the emulated device and
its kernels), nothing else: the host-side sandbox code, the agent and the tools never enter. The
Docker image copies it to `/opt/torchport`; the local sandbox stages it once per content hash in a
cache folder (byte-compiled, then mounted read-only).
"""

import compileall
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import sandbox

PACKAGE_DIR = Path(sandbox.__file__).resolve().parent
RUNTIME_PARTS = ("__init__.py", "runtime", "kernels")
"""What, under `sandbox/`, makes the runtime root (a missing part is skipped)."""
SKIPPED_NAMES = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache"})
SITE_DIR = "sandbox/runtime/site"
"""Relative to the runtime root: the folder holding `sitecustomize.py`."""


def runtime_files(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """Every file of the runtime root, relative to `package_dir`'s parent, sorted."""
    files: list[Path] = []
    for part in RUNTIME_PARTS:
        source = package_dir / part
        if source.is_file():
            files.append(source)
        elif source.is_dir():
            files.extend(_walk(source))
    return sorted(path.relative_to(package_dir.parent) for path in files)


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if name not in SKIPPED_NAMES)
        found.extend(Path(root) / name for name in names if not name.endswith((".pyc", ".pyo")))
    return found


def runtime_hash(package_dir: Path = PACKAGE_DIR) -> str:
    """A digest of the runtime root's paths and contents: it changes when the runtime does."""
    digest = hashlib.sha256()
    for relative in runtime_files(package_dir):
        digest.update(str(relative).encode() + b"\0")
        digest.update((package_dir.parent / relative).read_bytes() + b"\0")
    return digest.hexdigest()


def copy_runtime_root(dest: Path, package_dir: Path = PACKAGE_DIR) -> None:
    """Copy the runtime root's files under `dest` (which then holds `sandbox/...`)."""
    for relative in runtime_files(package_dir):
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(package_dir.parent / relative, target)


def cache_dir() -> Path:
    """Where staged runtime roots are kept: `$XDG_CACHE_HOME/torchport` or `~/.cache/torchport`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "torchport"


def staged_runtime_root(package_dir: Path = PACKAGE_DIR, cache: Path | None = None) -> Path:
    """A byte-compiled copy of the current runtime root, staged once per content hash.

    Staging goes to a temporary folder renamed into place, so concurrent runs never see a
    half-written root.
    """
    root_cache = (cache or cache_dir()) / "runtime"
    final = root_cache / runtime_hash(package_dir)[:16]
    if final.is_dir():
        return final
    root_cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root_cache))
    copy_runtime_root(staging, package_dir)
    compileall.compile_dir(staging, quiet=2, workers=1)
    for path in [staging, *staging.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    try:
        staging.rename(final)
    except OSError:
        shutil.rmtree(staging)
        if not final.is_dir():
            raise
        # another run staged the same hash first: use theirs
    return final
