"""What the detectors know about one module: parents, scopes, qualified names, claims.

Built once per module from libcst's ScopeProvider (qualified names are resolved on demand
through each node's scope, so `import torch.cuda as tc; tc.synchronize()` and
`from torch.cuda.amp import autocast` resolve to `torch.cuda.synchronize` and
`torch.cuda.amp.autocast`), plus one traversal that records every node's parent in pre-order.
"""

import dataclasses
from collections.abc import Iterator
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import (
    Assignment,
    BaseAssignment,
    CodeRange,
    MetadataWrapper,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)

from tools.scanner.positions import positions_of

NodeT = TypeVar("NodeT", bound=cst.CSTNode)
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
Body = cst.Module | cst.IndentedBlock


# Fields in source order where the dataclass order differs (decorators come first, ...).
_SOURCE_ORDER: dict[type[cst.CSTNode], tuple[str, ...]] = {
    cst.IfExp: ("body", "test", "orelse"),
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.Arg: ("keyword", "value"),
}
_LAYOUT = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
    cst.LeftParen,
    cst.RightParen,
)
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children except whitespace and parentheses, in source order.

    Reads the dataclass fields directly: libcst's visitors rebuild every node they pass, which
    made the traversal as slow as the scope analysis itself.
    """
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        default = tuple(field.name for field in dataclasses.fields(node))
        names = _FIELDS[kind] = _SOURCE_ORDER.get(kind, default)
    found: list[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, cst.CSTNode):
            if not isinstance(value, _LAYOUT):
                found.append(value)
        elif isinstance(value, tuple | list):
            found.extend(
                item
                for item in value
                if isinstance(item, cst.CSTNode) and not isinstance(item, _LAYOUT)
            )
    return found


def _structure(root: cst.CSTNode) -> tuple[dict[cst.CSTNode, cst.CSTNode], list[cst.CSTNode]]:
    """Every node's parent, and all nodes in pre-order (parents before children)."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    order: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        children = _children(node)
        for child in children:
            parents[child] = node
        stack.extend(reversed(children))
    return parents, order


def _imported_names(nodes: list[cst.CSTNode]) -> frozenset[str]:
    """Every local name an import statement binds, in any scope."""
    names = set()
    for node in nodes:
        if isinstance(node, cst.Import | cst.ImportFrom) and not isinstance(
            node.names, cst.ImportStar
        ):
            for alias in node.names:
                names.add(alias.evaluated_alias or alias.evaluated_name.split(".")[0])
    return frozenset(names)


class ModuleFacts:
    """Semantic facts about a parsed module, shared by detectors and codemods."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._scopes = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
        self._parents, self.order = _structure(module)
        self.imported = _imported_names(self.order)
        self._qnames: dict[cst.CSTNode, str | None] = {}
        self._claimed: set[cst.CSTNode] = set()
        self.analyses: dict[str, Any] = {}  # per-module results of the group analyses
        self._by_type: dict[type[cst.CSTNode], list[cst.CSTNode]] = {}

    # -- structure ---------------------------------------------------------------------------

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The node's parent (None for the module)."""
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """Parents from the nearest up to the module."""
        current = self._parents.get(node)
        while current is not None:
            yield current
            current = self._parents.get(current)

    def statement_of(self, node: cst.CSTNode) -> Statement | None:
        """The statement (simple line or compound) that contains `node`."""
        for ancestor in [node, *self.ancestors(node)]:
            if isinstance(ancestor, cst.SimpleStatementLine | cst.BaseCompoundStatement):
                return ancestor
        return None

    def standalone_line(self, expression: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The line when `expression` is the whole of a one-statement line (`f()` on its own)."""
        small = self.parent(expression)
        if not isinstance(small, cst.Expr):
            return None
        return self.single_statement_line(small)

    def single_statement_line(self, small: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The line holding `small` when it is that line's only statement and the line is in a
        block (not `if x: a()` on one line)."""
        line = self.parent(small)
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            return line
        return None

    def block_of(self, statement: cst.CSTNode) -> tuple[Body, int] | None:
        """The body that holds `statement` and its index there."""
        body = self.parent(statement)
        if isinstance(body, cst.Module | cst.IndentedBlock):
            for index, child in enumerate(body.body):
                if child is statement:
                    return body, index
        return None

    def nodes_of(self, kind: type[NodeT]) -> list[NodeT]:
        """Every node of exactly type `kind`, in source order."""
        if kind not in self._by_type:
            self._by_type[kind] = [node for node in self.order if type(node) is kind]
        return self._by_type[kind]  # type: ignore[return-value]

    def subtree(self, root: cst.CSTNode) -> list[cst.CSTNode]:
        """`root` and every node below it (whitespace aside)."""
        return _structure(root)[1]

    def enclosing(self, node: cst.CSTNode, kind: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The nearest ancestor of type `kind`."""
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, kind):
                return ancestor
        return None

    # -- names -------------------------------------------------------------------------------

    def scope(self, node: cst.CSTNode) -> Scope | None:
        """The scope the node's names are looked up in."""
        return self._scopes.get(node)

    def qname(self, node: cst.CSTNode) -> str | None:
        """The imported dotted name `node` (a Name, Attribute or the callee of a Call) refers to.

        Only names that resolve through an import count: a local variable called `torch` does
        not make `torch.cuda` CUDA.
        """
        if isinstance(node, cst.Call):
            node = node.func
        if not isinstance(node, cst.Name | cst.Attribute):
            return None
        if node in self._qnames:
            return self._qnames[node]
        root: cst.BaseExpression = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or root.value not in self.imported:
            self._qnames[node] = None  # only names bound by an import resolve to one
            return None
        found: str | None = None
        scope = self._scopes.get(node)
        if scope is not None:
            names = [
                qualified.name
                for qualified in scope.get_qualified_names_for(node)
                if qualified.source is QualifiedNameSource.IMPORT
            ]
            found = min(names) if names else None
        self._qnames[node] = found
        return found

    def assignments_of(self, name: cst.Name) -> list[BaseAssignment]:
        """The bindings a Name reference can refer to (empty when unresolved)."""
        scope = self._scopes.get(name)
        if scope is None:
            return []
        for access in scope.accesses[name.value]:
            if access.node is name:
                return list(access.referents)
        return []

    def assigned_value(self, assignment: BaseAssignment) -> cst.BaseExpression | None:
        """The value bound by a plain `name = value` / `name: T = value` assignment."""
        if not isinstance(assignment, Assignment) or not isinstance(assignment.node, cst.Name):
            return None
        holder = self.parent(assignment.node)
        if isinstance(holder, cst.AssignTarget):
            statement = self.parent(holder)
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                return statement.value
        if isinstance(holder, cst.AnnAssign) and holder.target is assignment.node:
            return holder.value
        return None

    # -- claims ------------------------------------------------------------------------------

    def claim(self, *nodes: cst.CSTNode) -> None:
        """Mark nodes as reported by a more specific rule, so generic rules skip them."""
        self._claimed.update(nodes)

    def is_claimed(self, node: cst.CSTNode) -> bool:
        """Whether a more specific rule already reports this node."""
        return node in self._claimed

    def positions(self, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, CodeRange]:
        """Source ranges of `nodes` (one code-generation pass)."""
        return positions_of(self.module, nodes)
