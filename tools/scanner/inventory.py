"""Scan a folder on all cores and summarise what was found."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.errors import BadInputError
from agent.log import get_logger
from agent.settings import Target
from tools.scanner.files import source_files
from tools.scanner.findings import FileScan, Finding, Unparsable
from tools.scanner.pool import balanced_chunks, cores, parallel_map
from tools.scanner.source import scan_text

log = get_logger(__name__)
PARALLEL_FROM_BYTES = 200_000  # below this, starting workers costs more than it saves
CHUNKS_PER_WORKER = 4


@dataclass(frozen=True)
class Inventory:
    """Everything a scan of a folder found, for one target."""

    root: Path
    target: Target
    files: tuple[FileScan, ...]

    @property
    def findings(self) -> list[Finding]:
        """All findings, by path then position."""
        return [finding for scanned in self.files for finding in scanned.findings]

    @property
    def unparsable(self) -> list[Unparsable]:
        """Files that could not be read as source, with the error and where."""
        return [scanned.unparsable for scanned in self.files if scanned.unparsable]

    @property
    def summary(self) -> dict[str, Any]:
        """Counts per rule, category and effort; the share a codemod fixes, overall and per file."""
        return summarize(self)


def scan_path(
    root: Path,
    *,
    target: Target = Target.AGNOSTIC,
    ignore: Sequence[str] = (),
    jobs: int | None = None,
) -> Inventory:
    """Scan every source file under `root` (see tools.scanner.files for what is skipped)."""
    if not root.is_dir():
        raise BadInputError(f"{root} is not a directory", hint="pass the repository folder")
    root = root.resolve()
    paths = [path.as_posix() for path in source_files(root, ignore)]
    sizes = [_size(root / path) for path in paths]
    workers = jobs or cores()
    if sum(sizes) < PARALLEL_FROM_BYTES:
        workers = 1
    chunks = balanced_chunks(paths, sizes, workers * CHUNKS_PER_WORKER)
    work = [(str(root), chunk, target.value) for chunk in chunks]
    results = parallel_map(_scan_chunk, work, jobs=workers)
    scanned = sorted((item for chunk in results for item in chunk), key=lambda item: item.path)
    log.debug("scanned %d files under %s with %d worker(s)", len(scanned), root, workers)
    return Inventory(root, target, tuple(scanned))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _scan_chunk(work: tuple[str, list[str], str]) -> list[FileScan]:
    """Worker: scan some files of one folder (module-level so a process pool can call it)."""
    root, paths, target = work
    return [scan_file(Path(root), path, Target(target)) for path in paths]


def scan_file(root: Path, path: str, target: Target) -> FileScan:
    """Scan one file, reporting unreadable or undecodable files as unparsable."""
    try:
        text = (root / path).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return FileScan(path, 0, unparsable=Unparsable(path, 1, 1, f"not UTF-8 text: {exc.reason}"))
    except OSError as exc:
        return FileScan(path, 0, unparsable=Unparsable(path, 1, 1, f"cannot read: {exc.strerror}"))
    return scan_text(text, path, target)


def summarize(inventory: Inventory) -> dict[str, Any]:
    """The summary block of the JSON report."""
    findings = inventory.findings
    per_file: dict[str, Any] = {}
    for scanned in inventory.files:
        if scanned.findings:
            fixable = sum(finding.fixable for finding in scanned.findings)
            per_file[scanned.path] = {
                "findings": len(scanned.findings),
                "fixable": fixable,
                "automatic_share": _share(fixable, len(scanned.findings)),
            }
    fixable = sum(finding.fixable for finding in findings)
    return {
        "target": inventory.target.value,
        "files_scanned": len(inventory.files),
        "lines_scanned": sum(scanned.lines for scanned in inventory.files),
        "findings": len(findings),
        "fixable": fixable,
        "automatic_share": _share(fixable, len(findings)),
        "by_rule": dict(sorted(Counter(finding.rule for finding in findings).items())),
        "by_category": dict(sorted(Counter(finding.category for finding in findings).items())),
        "by_effort": dict(sorted(Counter(finding.effort.value for finding in findings).items())),
        "files": per_file,
        "unparsable": [item.to_json() for item in inventory.unparsable],
    }


def _share(fixed: int, total: int) -> float:
    """Fraction of sites a codemod fixes (1.0 when there is nothing to fix)."""
    return round(fixed / total, 4) if total else 1.0
