"""Protected files: tests, task specs and golden probe files must not change in the migration.

Hashes are taken from the original tree when the reference is collected and compared with the
migrated tree (`changed_protected`). `pyproject.toml` counts by its `[tool.torchport]` table only
(dependencies may change), under the name `pyproject.toml[tool.torchport]`.
"""

import fnmatch
import hashlib
import json
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path

DEFAULT_PROTECTED = (
    "tests/**",
    "test/**",
    "**/test_*.py",
    "test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "conftest.py",
    "torchport.toml",
    "task.toml",
    "*.probe.json",
)
"""Always protected, in addition to the spec's `protected` globs."""
PYPROJECT_TABLE = "pyproject.toml[tool.torchport]"
IGNORED_DIRS = frozenset(
    {".git", "__pycache__", ".torchport", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)


def iter_files(root: Path) -> Iterator[str]:
    """Relative POSIX paths of the tree's files, sorted, without VCS and cache folders."""
    paths = []
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if any(part in IGNORED_DIRS for part in relative.parts) or not path.is_file():
            continue
        paths.append(relative.as_posix())
    yield from sorted(paths)


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_hash(root: Path) -> str:
    """One hash of every file's path and content (the tree's identity)."""
    digest = hashlib.sha256()
    for relative in iter_files(root):
        digest.update(relative.encode() + b"\0" + file_hash(root / relative).encode() + b"\n")
    return digest.hexdigest()


def _matches(relative: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(relative, pattern) for pattern in patterns)


def protected_hashes(root: Path, patterns: Iterable[str] = ()) -> dict[str, str]:
    """Path → hash of every protected file of `root` (defaults plus `patterns`)."""
    globs = (*DEFAULT_PROTECTED, *patterns)
    hashes = {rel: file_hash(root / rel) for rel in iter_files(root) if _matches(rel, globs)}
    table = _torchport_table(root / "pyproject.toml")
    if table is not None:
        hashes[PYPROJECT_TABLE] = table
    return hashes


def _torchport_table(pyproject: Path) -> str | None:
    if not pyproject.is_file():
        return None
    try:
        table = (
            tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("torchport")
        )
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return "unparsable"
    if table is None:
        return None
    return hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()


def changed_protected(
    reference: dict[str, str], root: Path, patterns: Iterable[str] = ()
) -> list[str]:
    """What differs between the reference's protected hashes and `root`: changed, deleted, added."""
    current = protected_hashes(root, patterns)
    changes = []
    for path, digest in sorted(reference.items()):
        if path not in current:
            changes.append(f"{path} was deleted")
        elif current[path] != digest:
            changes.append(f"{path} was changed")
    changes.extend(f"{path} was added" for path in sorted(set(current) - set(reference)))
    return changes
