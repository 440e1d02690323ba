"""Line/column ranges for a few nodes, computed in one code-generation pass.

libcst's PositionProvider records a range for every node of the module; the scanner needs
ranges only for the nodes it reports, so this state tracks the text position lazily and records
only the wanted nodes (same syntactic ranges as PositionProvider: no leading whitespace or
comments, no enclosing parentheses).
"""

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange


@dataclass
class _SparsePositionState(CodegenState):
    wanted: Collection[cst.CSTNode] = ()
    found: dict[cst.CSTNode, CodeRange] = field(default_factory=dict)
    _line: int = 1
    _column: int = 0
    _consumed: int = 0
    _starts: list[CodePosition | None] = field(default_factory=list)

    def _position(self) -> CodePosition:
        """Where the next token goes: advance over the tokens emitted since the last call."""
        if self._consumed < len(self.tokens):
            text = "".join(self.tokens[self._consumed :])
            self._consumed = len(self.tokens)
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            newlines = text.count("\n")
            if newlines:
                self._line += newlines
                self._column = len(text) - text.rfind("\n") - 1
            else:
                self._column += len(text)
        return CodePosition(self._line, self._column)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append(self._position() if node in self.wanted else None)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        if start is not None and node not in self.found:
            self.found[node] = CodeRange(start, self._position())

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        if node not in self.wanted:
            yield
            return
        start = self._position()
        try:
            yield
        finally:
            self.found[node] = CodeRange(start, self._position())


def positions_of(
    module: cst.Module, nodes: Collection[cst.CSTNode]
) -> dict[cst.CSTNode, CodeRange]:
    """The syntactic range of each node in `nodes` (1-based lines, 0-based columns)."""
    if not nodes:
        return {}
    state = _SparsePositionState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        wanted=set(nodes),
    )
    module._codegen(state)
    return state.found
