"""Which files a scan reads: Python and CUDA sources, minus ignored paths.

Skipped: paths matched by `.gitignore` files (those of PATH's folders and of the folders above
it up to the git work tree root, plus `.git/info/exclude`) and by the caller's gitignore-style
`ignore` patterns; version-control folders, caches, `node_modules`, `site-packages`, and
virtual environments (any folder with a `pyvenv.cfg` or `conda-meta`).
"""

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

SOURCE_SUFFIXES = (".py", ".cu", ".cuh")
SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        "site-packages",
        "dist-packages",
        ".tox",
        ".nox",
        ".venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        ".ipynb_checkpoints",
    }
)
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")


@dataclass(frozen=True)
class _Rules:
    """Ignore patterns and the folder they are relative to."""

    base: Path
    lines: tuple[str, ...]
    spec: pathspec.GitIgnoreSpec

    @classmethod
    def of(cls, base: Path, lines: Sequence[str]) -> "_Rules":
        """Rules from gitignore-style lines."""
        return cls(base, tuple(lines), pathspec.GitIgnoreSpec.from_lines(lines))

    def ignores(self, path: Path, is_dir: bool) -> bool:
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            return False
        return self.spec.match_file(relative + "/" if is_dir else relative)


def source_files(root: Path, ignore: Sequence[str] = ()) -> list[Path]:
    """Scannable files under `root`, relative to it, sorted."""
    root = root.resolve()
    rules = [*_inherited_rules(root)]
    if ignore:
        rules.append(_Rules.of(root, ignore))
    found: list[Path] = []
    _walk(root, root, rules, found)
    return sorted(found)


def _walk(root: Path, folder: Path, rules: list[_Rules], found: list[Path]) -> None:
    local = _rules_in(folder)
    active = [*rules, local] if local else rules
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            if not _skipped_directory(path) and not _ignored(path, True, active):
                _walk(root, path, active, found)
        elif entry.is_file() and entry.name.endswith(SOURCE_SUFFIXES):
            if _ignored(path, False, active):
                continue
            found.append(path.relative_to(root))


def _skipped_directory(path: Path) -> bool:
    if path.name in SKIPPED_DIRECTORIES:
        return True
    return any((path / marker).exists() for marker in ENVIRONMENT_MARKERS)


def _ignored(path: Path, is_dir: bool, rules: Iterable[_Rules]) -> bool:
    return any(rule.ignores(path, is_dir) for rule in rules)


def _rules_in(folder: Path) -> _Rules | None:
    lines = _read_lines(folder / ".gitignore")
    return _Rules.of(folder, lines) if lines else None


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _inherited_rules(root: Path) -> list[_Rules]:
    """`.gitignore` files of the folders above `root` up to the work tree, and info/exclude.

    A scan root that is itself a work tree takes nothing from above. Rules that ignore the root
    itself (or a folder between their own folder and the root) are dropped: the caller asked for
    this folder explicitly, as when scanning a copy kept in an ignored cache folder.
    """
    if (root / ".git").exists():
        return _exclude_rules(root)
    above: list[_Rules] = []
    for folder in root.parents:
        found = _rules_in(folder)
        if found:
            above.append(found)
        if (folder / ".git").exists():
            above.extend(_exclude_rules(folder))
            break
    else:
        return []
    return [_without_root(rules, root) for rules in above[::-1]]


def _exclude_rules(work_tree: Path) -> list[_Rules]:
    exclude = _read_lines(work_tree / ".git" / "info" / "exclude")
    return [_Rules.of(work_tree, exclude)] if exclude else []


def _without_root(rules: _Rules, root: Path) -> _Rules:
    """`rules` minus the patterns that ignore `root` or a folder between `rules.base` and it."""
    folders = []
    folder = root
    while folder != rules.base and folder.is_relative_to(rules.base):
        folders.append(folder)
        folder = folder.parent
    kept = [
        line
        for line in rules.lines
        if not any(_Rules.of(rules.base, [line]).ignores(f, True) for f in folders)
    ]
    return _Rules.of(rules.base, kept)
