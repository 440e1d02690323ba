"""The model's tools: read_file, search_code, apply_edit, run, finish.

Each tool is a method whose signature and docstring are its schema (`tool_schemas`). A tool never
raises for a model mistake: it returns an observation that says what failed and what to send.
Edits to protected files (tests, probes, the parity spec) are refused.
"""

import fnmatch
import inspect
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, get_type_hints

from agent.llm import ToolCall
from tools.edits import EditRefused, SearchReplace, apply_edit
from tools.edits.search_replace import resolve_inside
from tools.parity.protect import DEFAULT_PROTECTED as PARITY_PROTECTED

DEFAULT_PROTECTED = (*PARITY_PROTECTED, "pyproject.toml")
"""What parity hash-checks, plus the whole pyproject.toml (it holds the parity spec)."""
TOOL_NAMES = ("read_file", "search_code", "apply_edit", "run", "finish")
MAX_READ_LINES = 400
MAX_SEARCH_HITS = 60


def is_protected(relative: str, patterns: Sequence[str]) -> bool:
    """Whether `relative` (a repo path) matches one of the protected globs."""
    return any(fnmatch.fnmatch(relative, pattern) for pattern in patterns)


class Toolbox:
    """The tools of one LLM session over a workspace."""

    def __init__(
        self,
        workspace: Path,
        *,
        run: Callable[[], str],
        protected: Sequence[str] = DEFAULT_PROTECTED,
    ) -> None:
        self.workspace = workspace
        self.protected = tuple(protected)
        self.edited: list[str] = []
        self.finished: str | None = None
        self._run = run

    def read_file(self, path: str, start_line: int = 1, end_line: int | None = None) -> str:
        """Read a file of the repository, with line numbers.

        Args:
            path: path relative to the repository root.
            start_line: first line to show, 1-based.
            end_line: last line to show; at most 400 lines are shown per call.
        """
        file = resolve_inside(self.workspace, path)
        if not file.is_file():
            return f"{path} does not exist. Use search_code to find the right file."
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        first = max(1, start_line)
        last = min(len(lines), end_line or first + MAX_READ_LINES - 1, first + MAX_READ_LINES - 1)
        shown = [f"{n:>5} | {lines[n - 1]}" for n in range(first, last + 1)]
        more = f"\n… {len(lines) - last} more lines" if last < len(lines) else ""
        return f"{path} (lines {first}-{last} of {len(lines)})\n" + "\n".join(shown) + more

    def search_code(self, pattern: str, glob: str = "**/*.py") -> str:
        """Search the repository with a regular expression; returns `path:line: text` hits.

        Args:
            pattern: a Python regular expression.
            glob: which files to search, relative to the root (default every Python file).
        """
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            return f"Invalid regular expression: {exc}. Send a valid Python regex."
        hits = []
        for file in sorted(self.workspace.glob(glob)):
            if ".git" in file.parts or not file.is_file():
                continue
            relative = file.relative_to(self.workspace).as_posix()
            text = file.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    hits.append(f"{relative}:{number}: {line.strip()}")
        if not hits:
            return f"No match for {pattern!r} in {glob}."
        extra = len(hits) - MAX_SEARCH_HITS
        tail = f"\n… {extra} more hits; narrow the pattern" if extra > 0 else ""
        return "\n".join(hits[:MAX_SEARCH_HITS]) + tail

    def apply_edit(self, path: str, search: str, replace: str) -> str:
        """Replace the one exact occurrence of `search` in a file with `replace`.

        Args:
            path: path relative to the repository root.
            search: text copied exactly from the file, occurring once (empty: create a new file).
            replace: the new text.
        """
        if is_protected(path, self.protected):
            return (
                f"Edit refused: {path} is protected (tests, probes and the parity spec must stay "
                "as they are). Change the program, not its checks."
            )
        try:
            apply_edit(self.workspace, SearchReplace(path, search, replace))
        except EditRefused as exc:
            return exc.for_model()
        self.edited.append(path)
        return f"Edited {path}."

    def run(self) -> str:
        """Run the migrated program on the target in the sandbox; returns the outcome."""
        return self._run()

    def finish(self, summary: str) -> str:
        """End the session.

        Args:
            summary: what you changed and why, in one or two sentences.
        """
        self.finished = summary
        return "Session finished."


def tool_schemas(toolbox: Toolbox) -> list[dict[str, Any]]:
    """OpenAI tool definitions built from the tool methods' signatures and docstrings."""
    return [_schema(getattr(toolbox, name)) for name in TOOL_NAMES]


def call_tool(toolbox: Toolbox, call: ToolCall) -> str:
    """Run one tool call and return the observation text (never raises for model mistakes)."""
    if call.name not in TOOL_NAMES:
        return f"Unknown tool {call.name!r}. Available tools: {', '.join(TOOL_NAMES)}."
    if call.arguments is None:
        return f"The arguments of {call.name} are not valid JSON: {call.raw_arguments[:200]!r}."
    method = getattr(toolbox, call.name)
    try:
        inspect.signature(method).bind(**call.arguments)
    except TypeError as exc:
        return f"Bad arguments for {call.name}: {exc}. Expected {_signature_text(method)}."
    try:
        return str(method(**call.arguments))
    except EditRefused as exc:
        return exc.for_model()


def _schema(method: Callable[..., Any]) -> dict[str, Any]:
    doc = inspect.getdoc(method) or ""
    description, _, args_section = doc.partition("Args:")
    arg_docs = dict(re.findall(r"^\s*(\w+): (.+)$", args_section, re.M))
    hints = get_type_hints(method)
    properties: dict[str, Any] = {}
    required = []
    for name, parameter in inspect.signature(method).parameters.items():
        properties[name] = {"type": _json_type(hints[name]), "description": arg_docs.get(name, "")}
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
    return {
        "type": "function",
        "function": {
            "name": method.__name__,
            "description": " ".join(description.split()),
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def _json_type(annotation: Any) -> str:
    text = str(annotation)
    if "int" in text:
        return "integer"
    return "string"


def _signature_text(method: Callable[..., Any]) -> str:
    return f"{method.__name__}{inspect.signature(method)}"
