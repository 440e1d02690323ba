"""`agent fix --no-llm --dry-run`: what the codemods would change, and what is left."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.settings import Target
from tools.codemods.migrate import FileMigration, migrate_tree, unified_diff
from tools.scanner import Finding, scan_path


@dataclass(frozen=True)
class Preview:
    """The diff of every codemod for a target, the migrations behind it, and the findings no
    codemod fixes (they need the agent or a person)."""

    diff: str
    migrations: list[FileMigration]
    manual: list[Finding]

    @property
    def fixes(self) -> int:
        """How many codemod edits the diff holds."""
        return sum(len(migration.applied) for migration in self.migrations)


def preview(root: Path, target: Target, *, ignore: Sequence[str] = ()) -> Preview:
    """Run every codemod for `target` on the tree under `root` without writing anything."""
    migrations = migrate_tree(root, target, ignore=ignore)
    manual = [
        finding
        for finding in scan_path(root, target=target, ignore=ignore).findings
        if not finding.fixable
    ]
    return Preview(unified_diff(migrations), migrations, manual)
