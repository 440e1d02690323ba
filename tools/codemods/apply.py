"""Apply the collected edits to a module: node rewrites, deleted lines, the DEVICE constant and
the imports the rewrites need (or no longer need)."""

import sys
from collections.abc import Sequence

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

from tools.codemods.build import is_removed
from tools.codemods.context import Edit, FixContext, Replacement
from tools.codemods.devices import constant_name

CONSTANT_COMMENT = (
    "# torchport: the accelerator when there is one (cuda, tpu, neuron, ...), else the CPU."
)


class _EditApplier(cst.CSTTransformer):
    def __init__(self, edits: dict[cst.CSTNode, list[Edit]]) -> None:
        super().__init__()
        self._edits = edits

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Replacement:  # type: ignore[override]
        result: Replacement = updated_node
        for change in self._edits.get(original_node, ()):
            if not isinstance(result, cst.CSTNode):
                break
            result = change(result)
        if isinstance(result, cst.Module):
            return result.with_changes(body=_sweep(result.body, nested=False))
        if isinstance(result, cst.IndentedBlock):
            return result.with_changes(body=_sweep(result.body, nested=True))
        return result


def _sweep(body: Sequence[cst.BaseStatement], *, nested: bool) -> list[cst.BaseStatement]:
    """Drop deletion markers, handing their blank lines on; a block left empty gets `pass`."""
    kept: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    for statement in body:
        if is_removed(statement):
            assert isinstance(statement, cst.SimpleStatementLine)
            carried = _merge(carried, _detached(statement.leading_lines))
            continue
        if carried and isinstance(statement, cst.SimpleStatementLine | cst.BaseCompoundStatement):
            merged = _merge(carried, list(statement.leading_lines))
            statement = statement.with_changes(leading_lines=merged)
        carried = []
        kept.append(statement)
    if nested and not kept:
        kept.append(cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=carried))
    return kept


def _detached(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """Leading lines of a deleted statement minus the comments written right above it."""
    kept = list(lines)
    while kept and kept[-1].comment is not None:
        kept.pop()
    return kept


def _merge(first: list[cst.EmptyLine], second: list[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """Concatenate leading lines without growing a run of blank lines past the longest one."""
    longest = max(_blank_run(first), _blank_run(second))
    merged: list[cst.EmptyLine] = []
    run = 0
    for line in [*first, *second]:
        run = run + 1 if line.comment is None else 0
        if line.comment is None and run > longest:
            continue
        merged.append(line)
    return merged


def _blank_run(lines: Sequence[cst.EmptyLine]) -> int:
    longest = run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        longest = max(longest, run)
    return longest


def apply_edits(context: FixContext) -> cst.Module:
    """The module with every collected edit made and its imports settled."""
    module = context.facts.module.visit(_EditApplier(context.edits))
    if context.needs_constant:
        module = _insert_constant(module, context)
    for name in sorted(context.standard_imports):
        module = add_standard_import(module, name)
    scheduled = context.imports.scratch  # the import visitors are slow: run them only when asked
    if scheduled.get(AddImportsVisitor.CONTEXT_KEY):
        module = AddImportsVisitor(context.imports).transform_module(module)
    if scheduled.get(RemoveImportsVisitor.CONTEXT_KEY):
        module = RemoveImportsVisitor(context.imports).transform_module(module)
    return module


def add_standard_import(module: cst.Module, name: str) -> cst.Module:
    """`import <name>` among the standard-library imports at the top, in sorted place (a new
    group before the others when there is none)."""
    body = list(module.body)
    end = _after_imports(body)
    if any(_imports(statement) == [name] for statement in body[:end]):
        return module
    line = cst.parse_statement(f"import {name}\n")
    groups = _import_groups(body, end)
    standard = next((group for group in groups if _all_standard(body, group)), None)
    if standard is None:
        first = groups[0][0] if groups else end
        following = body[first] if first < len(body) else None
        if following is not None and groups:
            line = line.with_changes(leading_lines=following.leading_lines)
            body[first] = following.with_changes(leading_lines=[cst.EmptyLine()])
        body.insert(first, line)
        return module.with_changes(body=body)
    position = next((index for index in standard if _sort_key(body[index]) > name), None)
    if position is None:
        body.insert(standard[-1] + 1, line)
    else:
        line = line.with_changes(leading_lines=body[position].leading_lines)
        body[position] = body[position].with_changes(leading_lines=[])
        body.insert(position, line)
    return module.with_changes(body=body)


def _imports(statement: cst.BaseStatement) -> list[str]:
    """Top-level module names a plain import line imports (`from x import y` gives `x`)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return []
    names = []
    for small in statement.body:
        if isinstance(small, cst.Import):
            names += [alias.evaluated_name.split(".")[0] for alias in small.names]
        elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
            names.append(cst.Module([]).code_for_node(small.module).split(".")[0])
        else:
            return []
    return names


def _import_groups(body: Sequence[cst.BaseStatement], end: int) -> list[list[int]]:
    """Indexes of the import lines at the top, split where a blank line or comment separates."""
    groups: list[list[int]] = []
    for index in range(end):
        statement = body[index]
        if not _imports(statement) or "__future__" in _imports(statement):
            continue
        assert isinstance(statement, cst.SimpleStatementLine)
        if not groups or statement.leading_lines or groups[-1][-1] != index - 1:
            groups.append([])
        groups[-1].append(index)
    return groups


def _all_standard(body: Sequence[cst.BaseStatement], group: list[int]) -> bool:
    return all(name in sys.stdlib_module_names for index in group for name in _imports(body[index]))


def _sort_key(statement: cst.BaseStatement) -> str:
    names = _imports(statement)
    return names[0] if names else ""


def _insert_constant(module: cst.Module, context: FixContext) -> cst.Module:
    """`DEVICE = torch.accelerator.current_accelerator(check_available=True) or ...` after the
    imports at the top of the module."""
    name, _ = constant_name(context.facts)
    torch = context.torch()
    line = cst.parse_statement(
        f"{name} = {torch}.accelerator.current_accelerator(check_available=True)"
        f' or {torch}.device("cpu")\n'
    )
    line = line.with_changes(
        leading_lines=[cst.EmptyLine(), cst.EmptyLine(comment=cst.Comment(CONSTANT_COMMENT))]
    )
    body = list(module.body)
    position = _after_imports(body)
    if position < len(body):
        following = body[position]
        statement = isinstance(following, cst.SimpleStatementLine | cst.BaseCompoundStatement)
        lines = following.leading_lines if statement else ()
        if statement and (not lines or lines[0].comment is not None):
            body[position] = following.with_changes(leading_lines=[cst.EmptyLine(), *lines])
    body.insert(position, line)
    return module.with_changes(body=body)


def _after_imports(body: Sequence[cst.BaseStatement]) -> int:
    """Index after the docstring, `from __future__` and the import block at the top."""
    position = 0
    for index, statement in enumerate(body):
        if _is_import_like(statement) or (index == 0 and _is_docstring(statement)):
            position = index + 1
        else:
            break
    return position


def _is_import_like(statement: cst.BaseStatement) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return all(isinstance(small, cst.Import | cst.ImportFrom) for small in statement.body)
    if isinstance(statement, cst.Try):
        lines = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else []
        return bool(lines) and all(_is_import_like(line) for line in lines)
    return False


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )
