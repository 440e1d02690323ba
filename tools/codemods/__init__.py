"""Per-rule, per-target libcst rewrites of CUDA lock-in (see README.md).

Public API: `migrate_source`, `migrate_tree`, `write_migrations`, `unified_diff`, `preview`.
"""

from tools.codemods.context import AppliedFix
from tools.codemods.migrate import (
    CodemodResult,
    FileMigration,
    migrate_source,
    migrate_tree,
    unified_diff,
    write_migrations,
)
from tools.codemods.preview import Preview, preview

__all__ = [
    "AppliedFix",
    "CodemodResult",
    "FileMigration",
    "Preview",
    "migrate_source",
    "migrate_tree",
    "preview",
    "unified_diff",
    "write_migrations",
]
