"""Detectors for CUDA-only libraries (TP035 for apex.amp, TP150-TP156)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import chain, claim_callee, is_guarded_import
from tools.scanner.facts import ModuleFacts
from tools.scanner.libraries import (
    LIBRARIES,
    attention_fixable,
    is_lower_triangular,
    library_call_code,
)
from tools.scanner.site import Site, site


def _module_of(statement: cst.Import | cst.ImportFrom, alias: cst.ImportAlias) -> str:
    name = cst.Module([]).code_for_node(alias.name)
    if isinstance(statement, cst.Import) or statement.module is None:
        return name
    return f"{cst.Module([]).code_for_node(statement.module)}.{name}"


def library_code(module: str) -> str | None:
    """The rule for importing `module` (apex.amp is an AMP rule, the rest third-party)."""
    if module == "apex.amp" or module.startswith("apex.amp."):
        return "TP035"
    top = module.split(".")[0]
    for prefix, code in LIBRARIES:
        if module == prefix or module.startswith(prefix + ".") or top == prefix:
            return code
    return None


def on_import(statement: cst.Import | cst.ImportFrom, facts: ModuleFacts) -> Iterator[Site]:
    """One finding per CUDA-only library imported outside a try/except ImportError."""
    if isinstance(statement, cst.ImportFrom) and (statement.relative or statement.module is None):
        return
    if is_guarded_import(statement, facts) or isinstance(statement.names, cst.ImportStar):
        return
    for alias in statement.names:
        code = library_code(_module_of(statement, alias))
        if code is not None:
            fixable = _uses_all_fixable(statement, alias, facts)
            yield site(code, alias, fixable=fixable, data=statement)


def _uses_all_fixable(
    statement: cst.Import | cst.ImportFrom, alias: cst.ImportAlias, facts: ModuleFacts
) -> bool:
    """The import goes away when every use of its name is a call the codemod rewrites."""
    bound = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
    scope = facts.scope(statement)
    if scope is None:
        return False
    for assignment in scope.assignments[bound]:
        if getattr(assignment, "node", None) is not statement:
            continue
        for access in assignment.references:
            call = _call_of(access.node, facts)
            if call is None or not (
                attention_fixable(call, facts) or _consumed_by_rewrite(call, facts)
            ):
                return False
    return True


def _consumed_by_rewrite(call: cst.Call, facts: ModuleFacts) -> bool:
    """`LowerTriangularMask()` passed to an attention call that is rewritten (to is_causal)."""
    arg = facts.parent(call)
    outer = facts.parent(arg) if isinstance(arg, cst.Arg) else None
    return (
        isinstance(outer, cst.Call)
        and is_lower_triangular(call, facts)
        and attention_fixable(outer, facts)
    )


def _call_of(reference: cst.CSTNode, facts: ModuleFacts) -> cst.Call | None:
    """The call whose callee is `reference` or a dotted name starting with it."""
    node = reference
    parent = facts.parent(node)
    while isinstance(parent, cst.Attribute) and parent.value is node:
        node, parent = parent, facts.parent(parent)
    if isinstance(parent, cst.Call) and parent.func is node:
        return parent
    return None


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """Calls into flash-attn, xformers, apex and bitsandbytes."""
    if facts.is_claimed(call):
        return
    qualified = facts.qname(call) or ""
    code = library_call_code(qualified)
    if code is None or _from_guarded_import(call, facts):
        return
    claim_callee(call, facts)
    fixable = attention_fixable(call, facts)
    if fixable:
        for arg in call.args:  # the LowerTriangularMask() that the rewrite consumes
            if isinstance(arg.value, cst.Call):
                claim_callee(arg.value, facts)
    yield site(code, call, fixable=fixable, data=qualified)


def _from_guarded_import(call: cst.Call, facts: ModuleFacts) -> bool:
    root = list(chain(call.func))[-1]
    if not isinstance(root, cst.Name):
        return False
    for assignment in facts.assignments_of(root):
        node = getattr(assignment, "node", None)
        if isinstance(node, cst.Import | cst.ImportFrom):
            return is_guarded_import(node, facts)
    return False
