"""What the detectors know about one module: parents, scopes, qualified names, claims.

Built once per module from libcst's ScopeProvider (qualified names are resolved on demand
through each node's scope, so `import torch.cuda as tc; tc.synchronize()` and
`from torch.cuda.amp import autocast` resolve to `torch.cuda.synchronize` and
`torch.cuda.amp.autocast`), plus one traversal that records every node's parent in pre-order.
"""

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


class _Collector(cst.CSTVisitor):
    """Records each node's parent and the pre-order sequence of nodes."""

    def __init__(self) -> None:
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.order: list[cst.CSTNode] = []
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.parents[node] = self._stack[-1]
        self._stack.append(node)
        self.order.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


class _Subtree(cst.CSTVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.append(node)
        return True


class ModuleFacts:
    """Semantic facts about a parsed module, shared by detectors and codemods."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._scopes = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider)
        collector = _Collector()
        module.visit(collector)
        self._parents = collector.parents
        self.order = collector.order
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
        """`root` and every node below it."""
        collector = _Subtree()
        root.visit(collector)
        return collector.nodes

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
