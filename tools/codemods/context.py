"""What a fixer works with: the module's facts, the target, and where to put its edits."""

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst
from libcst import PartialParserConfig
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.helpers import parse_template_expression, parse_template_statement
from libcst.metadata import ImportAssignment

from agent.settings import Target
from tools.codemods.build import removed
from tools.codemods.devices import constant_name, device_name_at
from tools.scanner.facts import ModuleFacts

Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]
Edit = Callable[[cst.CSTNode], Replacement]
_TORCH = re.compile(r"\btorch\.")


@dataclass(frozen=True)
class AppliedFix:
    """One codemod edit: the rule, the line it was made at, and what it did."""

    rule: str
    line: int
    description: str


class FixContext:
    """Collects the edits of all fixers for one module; `apply` makes them."""

    def __init__(self, facts: ModuleFacts, target: Target) -> None:
        self.facts = facts
        self.target = target
        self.edits: dict[cst.CSTNode, list[Edit]] = {}
        self.imports = CodemodContext()
        self.needs_constant = False
        self.standard_imports: set[str] = set()
        self._torch: str | None = None

    # -- edits -------------------------------------------------------------------------------

    def edit(self, node: cst.CSTNode, change: Edit) -> None:
        """Rewrite `node` with `change(updated node)` (inner edits are already applied)."""
        self.edits.setdefault(node, []).append(change)

    def remove_line(self, line: cst.SimpleStatementLine) -> None:
        """Delete a statement line (its blank lines and comments stay for the next one)."""
        self.edit(line, lambda updated: removed(updated))  # type: ignore[arg-type]

    # -- names -------------------------------------------------------------------------------

    @property
    def bf16_target(self) -> bool:
        """tpu and neuron compute in bfloat16: no fp16, no GradScaler, no float64."""
        return self.target in (Target.TPU, Target.NEURON)

    def torch(self) -> str:
        """The module's name for `torch` (importing it when the module does not)."""
        if self._torch is None:
            self._torch = self.module_alias("torch") or "torch"
            if self.module_alias("torch") is None:
                AddImportsVisitor.add_needed_import(self.imports, "torch")
        return self._torch

    def module_alias(self, module: str) -> str | None:
        """The module-level name bound to `module` (`dist` for torch.distributed), if any."""
        scope = self.facts.scope(self.facts.module)
        if scope is None:
            return None
        for assignment in scope.assignments:
            if not isinstance(assignment, ImportAssignment):
                continue
            for qualified in scope.get_qualified_names_for(assignment.name):
                if qualified.name == module:
                    return assignment.name
        return None

    def expression(self, template: str, **nodes: cst.BaseExpression) -> cst.BaseExpression:
        """Parse `template` (written with `torch.`) with `{name}` placeholders filled."""
        return parse_template_expression(self._with_torch(template), PartialParserConfig(), **nodes)

    def statement(self, template: str, **nodes: cst.BaseExpression) -> cst.BaseStatement:
        """Parse a statement template (see `expression`)."""
        return parse_template_statement(self._with_torch(template), PartialParserConfig(), **nodes)

    def _with_torch(self, template: str) -> str:
        name = self.torch()
        return template if name == "torch" else _TORCH.sub(f"{name}.", template)

    def device(self, node: cst.CSTNode) -> cst.Name:
        """The device at `node`: a device variable in scope, else the module's DEVICE."""
        found = device_name_at(node, self.facts)
        if found is not None:
            return cst.Name(found)
        name, exists = constant_name(self.facts)
        self.needs_constant = self.needs_constant or not exists
        self.torch()
        return cst.Name(name)

    def device_type(self, node: cst.CSTNode) -> cst.BaseExpression:
        """`DEVICE.type` (a str such as "cuda", "tpu" or "cpu")."""
        return cst.Attribute(value=self.device(node), attr=cst.Name("type"))

    # -- imports -----------------------------------------------------------------------------

    def add_import(self, module: str, name: str | None = None) -> None:
        """Import `module` (or `name` from it) unless it is already imported; a plain
        standard-library import goes among the standard-library imports."""
        if name is None and module in sys.stdlib_module_names:
            self.standard_imports.add(module)
        else:
            AddImportsVisitor.add_needed_import(self.imports, module, name)

    def release(self, expression: cst.CSTNode) -> None:
        """The import behind `expression`'s first name may now be unused: remove it if so."""
        root = expression
        while isinstance(root, cst.Attribute | cst.Call):
            root = root.value if isinstance(root, cst.Attribute) else root.func
        if not isinstance(root, cst.Name) or root.value == self.module_alias("torch"):
            return
        for assignment in self.facts.assignments_of(root):
            if isinstance(assignment, ImportAssignment):
                self.release_import(assignment.node, assignment.name)

    def release_import(self, statement: cst.CSTNode, bound: str) -> None:
        """Schedule removal of the alias binding `bound` in an import statement, if unused."""
        if not isinstance(statement, cst.Import | cst.ImportFrom):
            return
        for alias in statement.names if not isinstance(statement.names, cst.ImportStar) else ():
            name = alias.evaluated_name
            as_name = alias.evaluated_alias
            if (as_name or name.split(".")[0]) != bound:
                continue
            if isinstance(statement, cst.Import):
                RemoveImportsVisitor.remove_unused_import(self.imports, name, asname=as_name)
            elif statement.module is not None and not statement.relative:
                module = cst.Module([]).code_for_node(statement.module)
                RemoveImportsVisitor.remove_unused_import(self.imports, module, name, as_name)
