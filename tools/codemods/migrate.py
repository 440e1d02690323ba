"""Run the codemods on a source or a tree; show the result as a diff; write it."""

import ast
import difflib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.log import get_logger
from agent.settings import Target
from tools.codemods.apply import apply_edits
from tools.codemods.context import AppliedFix, FixContext
from tools.codemods.fixers import FIXERS
from tools.rules import get_rule, rule_codes, with_partners
from tools.scanner.detect import for_target
from tools.scanner.files import source_files
from tools.scanner.pool import cores, parallel_map
from tools.scanner.source import UnparsableSourceError, analyze

log = get_logger(__name__)
PARALLEL_FROM_FILES = 24


@dataclass(frozen=True)
class CodemodResult:
    """The migrated text of one source and the fixes made in it (in line order)."""

    source: str
    applied: list[AppliedFix] = field(default_factory=list)


@dataclass(frozen=True)
class FileMigration:
    """A file the codemods change: its path (relative, POSIX), text before and after."""

    path: str
    before: str
    after: str
    applied: tuple[AppliedFix, ...]


def selected_rules(rules: Collection[str] | None) -> frozenset[str]:
    """The rule codes to apply (all by default), with the rules each must be fixed with."""
    if rules is None:
        return rule_codes()
    return with_partners(frozenset(get_rule(code).code for code in rules))


def migrate_source(
    source: str,
    target: Target,
    *,
    rules: Collection[str] | None = None,
    path: str = "<string>",
) -> CodemodResult:
    """Apply the codemods of `rules` (default: all) for `target` to a Python source.

    Formatting and comments are kept; running it again on the result changes nothing. Raises
    UnparsableSourceError when the source does not parse.
    """
    selected = selected_rules(rules)
    facts, sites = analyze(source, path)
    chosen = [
        site
        for site in for_target(sites, target)
        if site.code in selected and target in site.fixable and site.code in FIXERS
    ]
    if not chosen:
        return CodemodResult(source)
    context = FixContext(facts, target)
    lines = facts.positions([site.node for site in chosen])
    applied = [
        AppliedFix(site.code, lines[site.node].start.line, FIXERS[site.code](site, context))
        for site in chosen
    ]
    migrated = apply_edits(context).code
    _check_parses(migrated, path)
    return CodemodResult(migrated, sorted(applied, key=lambda fix: (fix.line, fix.rule)))


def _check_parses(source: str, path: str) -> None:
    """A rewrite that does not parse is a torchport bug: stop rather than write it."""
    try:
        ast.parse(source)
    except SyntaxError as exc:
        raise RuntimeError(f"codemod output for {path} does not parse: {exc}") from exc


def migrate_tree(
    root: Path,
    target: Target,
    *,
    rules: Collection[str] | None = None,
    ignore: Sequence[str] = (),
) -> list[FileMigration]:
    """The changes the codemods would make to the Python files under `root` (nothing written).

    Files that do not parse are skipped (the scan reports them).
    """
    root = root.resolve()
    selected = sorted(selected_rules(rules))
    paths = [path.as_posix() for path in source_files(root, ignore) if path.suffix == ".py"]
    jobs = cores() if len(paths) >= PARALLEL_FROM_FILES else 1
    work = [(str(root), path, target.value, tuple(selected)) for path in paths]
    results = parallel_map(_migrate_file, work, jobs=jobs)
    return [migration for migration in results if migration is not None]


def _migrate_file(work: tuple[str, str, str, tuple[str, ...]]) -> FileMigration | None:
    root, path, target, rules = work
    try:
        before = (Path(root) / path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("skipping %s: %s", path, exc)
        return None
    try:
        result = migrate_source(before, Target(target), rules=rules, path=path)
    except UnparsableSourceError as exc:
        log.warning("skipping %s", exc.one_line())
        return None
    if result.source == before:
        return None
    return FileMigration(path, before, result.source, tuple(result.applied))


def write_migrations(root: Path, migrations: Sequence[FileMigration]) -> None:
    """Write the migrated text of each file under `root` (UTF-8, newlines as they were)."""
    for migration in migrations:
        destination = root / migration.path
        temporary = destination.with_name(destination.name + ".torchport-tmp")
        temporary.write_bytes(migration.after.encode("utf-8"))
        temporary.replace(destination)


def unified_diff(migrations: Sequence[FileMigration]) -> str:
    """A git-style unified diff of the migrations (applies with `git apply`)."""
    chunks = []
    for migration in migrations:
        header = f"diff --git a/{migration.path} b/{migration.path}\n"
        lines = difflib.unified_diff(
            migration.before.splitlines(keepends=True),
            migration.after.splitlines(keepends=True),
            fromfile=f"a/{migration.path}",
            tofile=f"b/{migration.path}",
        )
        chunks.append(header + "".join(_terminated(line) for line in lines))
    return "".join(chunks)


def _terminated(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
