"""Search/replace blocks: the search text must occur exactly once; Python results must parse.

A refused edit says why and shows the closest real lines, so the model can send a block that
matches instead of guessing again.
"""

import ast
import difflib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class SearchReplace:
    """Replace the one occurrence of `search` in `path` (repo-relative) with `replace`."""

    path: str
    search: str
    replace: str


class EditRefused(Exception):
    """The edit does not apply exactly, is ambiguous, escapes the tree, or breaks the syntax."""

    def __init__(self, reason: str, *, closest: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.closest = closest

    def for_model(self) -> str:
        """The refusal as an observation: what failed, the closest real lines, what to send."""
        parts = [f"Edit refused: {self.reason}"]
        if self.closest:
            parts.append(f"Closest lines in the file:\n{self.closest}")
        parts.append("Send a new edit whose search text is copied exactly from the file.")
        return "\n\n".join(parts)


def resolve_inside(root: Path, relative: str) -> Path:
    """`root/relative`, refusing absolute paths and paths that leave `root`."""
    pure = PurePosixPath(relative)
    if pure.is_absolute() or ".." in pure.parts:
        raise EditRefused(f"path {relative!r} must be relative to the repository root")
    path = (root / pure).resolve()
    if not path.is_relative_to(root.resolve()):
        raise EditRefused(f"path {relative!r} leaves the repository")
    return path


def apply_edit(root: Path, edit: SearchReplace) -> str:
    """Apply `edit` under `root` and return the new file text; raise EditRefused otherwise.

    An empty `search` creates a new file (refused if it exists).
    """
    path = resolve_inside(root, edit.path)
    if not edit.search:
        if path.exists():
            raise EditRefused(f"{edit.path} exists; an empty search text only creates new files")
        new_text = edit.replace
    else:
        if not path.is_file():
            raise EditRefused(f"{edit.path} does not exist")
        text = path.read_text(encoding="utf-8")
        count = text.count(edit.search)
        if count == 0:
            raise EditRefused(
                f"the search text does not occur in {edit.path}",
                closest=closest_lines(text, edit.search),
            )
        if count > 1:
            raise EditRefused(
                f"the search text occurs {count} times in {edit.path}; add surrounding lines "
                "so that it occurs once"
            )
        new_text = text.replace(edit.search, edit.replace, 1)
    _check_syntax(edit.path, new_text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new_text, encoding="utf-8")
    return new_text


def _check_syntax(relative: str, text: str) -> None:
    if not relative.endswith(".py"):
        return
    try:
        ast.parse(text, filename=relative)
    except SyntaxError as exc:
        raise EditRefused(
            f"the result does not parse: {exc.msg} at {relative}:{exc.lineno}",
            closest=_numbered(text.splitlines(), max(0, (exc.lineno or 1) - 3), 5),
        ) from None


def closest_lines(text: str, search: str, context: int = 1) -> str:
    """The window of `text` most similar to `search`, with line numbers."""
    lines = text.splitlines()
    wanted = search.strip("\n").splitlines() or [""]
    size = len(wanted)
    if not lines:
        return ""
    best_start, best_ratio = 0, -1.0
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2("\n".join(line.strip() for line in wanted))
    for start in range(max(1, len(lines) - size + 1)):
        window = "\n".join(line.strip() for line in lines[start : start + size])
        matcher.set_seq1(window)
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_start, best_ratio = start, ratio
    first = max(0, best_start - context)
    return _numbered(lines, first, size + 2 * context)


def _numbered(lines: list[str], first: int, count: int) -> str:
    shown = lines[first : first + count]
    return "\n".join(f"{first + i + 1:>5} | {line}" for i, line in enumerate(shown))
