"""Helpers the detector modules share."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.guards import HOUSEKEEPING_PREFIXES, guarding_if, is_housekeeping
from tools.scanner.site import Site, site


def chain(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`a.b.c` and its parts `a.b` and `a`."""
    while isinstance(node, cst.Attribute):
        yield node
        node = node.value
    yield node


def claim_callee(call: cst.Call, facts: ModuleFacts) -> None:
    """Claim the callee chain so the generic `torch.cuda` rule does not report it again."""
    facts.claim(call, *chain(call.func))


def in_import(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    """Whether the node is part of an import statement."""
    return facts.enclosing(node, cst.Import) is not None or (
        facts.enclosing(node, cst.ImportFrom) is not None
    )


def is_guarded_import(statement: cst.Import | cst.ImportFrom, facts: ModuleFacts) -> bool:
    """`try: import x` / `except ImportError:` (the author made the library optional)."""
    for ancestor in facts.ancestors(statement):
        if isinstance(ancestor, cst.Try):
            return any(_catches_import_error(handler) for handler in ancestor.handlers)
        if isinstance(ancestor, cst.FunctionDef | cst.ClassDef):
            return False
    return False


def _catches_import_error(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = [handler.type] if not isinstance(handler.type, cst.Tuple) else handler.type.elements
    wanted = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
    for entry in names:
        value = entry.value if isinstance(entry, cst.Element) else entry
        if isinstance(value, cst.Name) and value.value in wanted:
            return True
    return False


def gate_site(check: cst.CSTNode, facts: ModuleFacts, *, fixable: bool = False) -> Iterator[Site]:
    """TP004 for a CUDA check, unless it only guards housekeeping (skipping that is correct)."""
    statement = guarding_if(check, facts)
    if statement is not None and is_housekeeping(statement, facts):
        return
    if _guards_housekeeping_call(check, facts):
        return
    message = None
    if facts.enclosing(check, cst.Assert) is not None:
        message = "An assert requires CUDA; it fails on the target"
    yield site("TP004", check, fixable=fixable, message=message)


def _guards_housekeeping_call(check: cst.CSTNode, facts: ModuleFacts) -> bool:
    """`torch.cuda.is_available() and torch.cuda.synchronize()` as a statement."""
    parent = facts.parent(check)
    return (
        isinstance(parent, cst.BooleanOperation)
        and isinstance(parent.operator, cst.And)
        and parent.left is check
        and isinstance(facts.parent(parent), cst.Expr)
        and (facts.qname(parent.right) or "").startswith(HOUSEKEEPING_PREFIXES)
    )


def is_keyword_value(node: cst.CSTNode, facts: ModuleFacts, *names: str) -> bool:
    """Whether `node` is the value of a `name=` argument."""
    parent = facts.parent(node)
    return (
        isinstance(parent, cst.Arg)
        and parent.keyword is not None
        and (parent.keyword.value in names)
    )


ENVIRONMENT = "os.environ"
ENVIRONMENT_CALLS = frozenset(
    {
        "os.environ.get",
        "os.environ.setdefault",
        "os.environ.pop",
        "os.getenv",
        "os.putenv",
        "os.unsetenv",
    }
)


def is_environment_key(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    """A string used as an environment variable name: `os.environ["X"]`, `os.getenv("X")`,
    `os.environ.setdefault("X", v)`, or a key of a dict (an `env=` mapping)."""
    parent = facts.parent(node)
    if isinstance(parent, cst.Index):
        subscript = facts.enclosing(parent, cst.Subscript)
        return isinstance(subscript, cst.Subscript) and facts.qname(subscript.value) == ENVIRONMENT
    if isinstance(parent, cst.Arg):
        call = facts.parent(parent)
        return isinstance(call, cst.Call) and facts.qname(call) in ENVIRONMENT_CALLS
    return isinstance(parent, cst.DictElement) and parent.key is node
