"""CUDA checks and the code they guard.

A check is `torch.cuda.is_available()`, `x.is_cuda`, `x.device.type == "cuda"`, a comparison
with a "cuda" string or `torch.cuda.device_count() > 0`, combined with `not`/`and`/`or`. Code
that runs only when a check passed (the body of `if check:`, the rest of a block after
`if not check: return`) is correct on every machine and is not reported.
"""

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import cuda_string, device_variable, is_device_valued

CUDA_PREDICATES = frozenset(
    {"torch.cuda.is_available", "torch.cuda.is_initialized", "torch.backends.cudnn.is_available"}
)
HOUSEKEEPING_PREFIXES = ("torch.cuda.", "torch.backends.")
EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def check_polarity(node: cst.CSTNode, facts: ModuleFacts) -> int:
    """+1 when `node` being true implies CUDA, -1 when it being false does, 0 otherwise."""
    if isinstance(node, cst.Call):
        return 1 if facts.qname(node) in CUDA_PREDICATES else 0
    if isinstance(node, cst.Attribute):
        return 1 if node.attr.value == "is_cuda" else 0
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return -check_polarity(node.expression, facts)
    if isinstance(node, cst.BooleanOperation):
        sides = (check_polarity(node.left, facts), check_polarity(node.right, facts))
        if isinstance(node.operator, cst.And):
            return 1 if 1 in sides else 0
        return -1 if -1 in sides else (1 if sides == (1, 1) else 0)
    if isinstance(node, cst.Comparison):
        return _comparison_polarity(node, facts)
    return 0


def _comparison_polarity(node: cst.Comparison, facts: ModuleFacts) -> int:
    if len(node.comparisons) != 1:
        return 0
    target = node.comparisons[0]
    operands = (node.left, target.comparator)
    operator = target.operator
    if any(cuda_string(operand) for operand in operands) and any(map(is_device_like, operands)):
        if isinstance(operator, cst.Equal | cst.Is | cst.In):
            return 1
        if isinstance(operator, cst.NotEqual | cst.IsNot | cst.NotIn):
            return -1
        return 0
    if facts.qname(node.left) == "torch.cuda.device_count":
        if isinstance(operator, cst.GreaterThan | cst.GreaterThanEqual | cst.NotEqual):
            return 1
        if isinstance(operator, cst.Equal | cst.LessThan):
            return -1
    return 0


DEVICE_WORDS = ("device", "dev", "accelerator")


def is_device_like(node: cst.CSTNode) -> bool:
    """An expression that plausibly holds a device or device type: `x.device.type`,
    `args.device`, `device_type`, `str(x.device)` (not any string compared with "cuda")."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "str":
        return len(node.args) == 1 and is_device_like(node.args[0].value)
    if isinstance(node, cst.Attribute):
        name = node.attr.value
        return name == "type" or any(word in name.lower() for word in DEVICE_WORDS)
    if isinstance(node, cst.Name):
        return any(word in node.value.lower() for word in DEVICE_WORDS)
    return False


def is_guarded(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    """Whether `node` only runs after a CUDA check passed."""
    child = node
    for parent in facts.ancestors(node):
        if _guards_child(parent, child, facts):
            return True
        child = parent
    return False


def _guards_child(parent: cst.CSTNode, child: cst.CSTNode, facts: ModuleFacts) -> bool:
    if isinstance(parent, cst.If | cst.IfExp):
        if child is parent.body:
            return check_polarity(parent.test, facts) == 1
        if child is parent.orelse:
            return check_polarity(parent.test, facts) == -1
        return False
    if isinstance(parent, cst.BooleanOperation) and child is parent.right:
        wanted = 1 if isinstance(parent.operator, cst.And) else -1
        return check_polarity(parent.left, facts) == wanted
    if isinstance(parent, cst.Module | cst.IndentedBlock):
        return any(_exits_unless_cuda(statement, facts) for statement in _before(parent, child))
    return False


def _before(body: cst.Module | cst.IndentedBlock, child: cst.CSTNode) -> list[cst.CSTNode]:
    earlier: list[cst.CSTNode] = []
    for statement in body.body:
        if statement is child:
            return earlier
        earlier.append(statement)
    return []


def _exits_unless_cuda(statement: cst.CSTNode, facts: ModuleFacts) -> bool:
    """`if not torch.cuda.is_available(): return` (or raise/continue/break)."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return False
    if check_polarity(statement.test, facts) != -1:
        return False
    body = statement.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) else None
    if isinstance(body, cst.SimpleStatementSuite):
        return isinstance(body.body[-1], EXITS)
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], EXITS)


def guarding_if(check: cst.CSTNode, facts: ModuleFacts) -> cst.If | None:
    """The `if` statement whose test contains `check` (through not/and/or/comparisons)."""
    child = check
    for parent in facts.ancestors(check):
        if isinstance(parent, cst.If):
            return parent if child is parent.test else None
        if not isinstance(
            parent,
            cst.BooleanOperation | cst.UnaryOperation | cst.Comparison | cst.ComparisonTarget,
        ):
            return None
        child = parent
    return None


def is_housekeeping(statement: cst.If, facts: ModuleFacts) -> bool:
    """An `if` without else whose body only calls or sets torch.cuda / torch.backends things
    (synchronize, empty_cache, cuDNN flags): skipping it off CUDA is correct."""
    if statement.orelse is not None:
        return False
    body = statement.body
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        if not isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            return False
        if not all(_is_housekeeping_statement(small, facts) for small in line.body):
            return False
    return True


def _is_housekeeping_statement(small: cst.BaseSmallStatement, facts: ModuleFacts) -> bool:
    if isinstance(small, cst.Pass):
        return True
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return (facts.qname(small.value) or "").startswith(HOUSEKEEPING_PREFIXES)
    if isinstance(small, cst.Assign):
        names = [facts.qname(target.target) or "" for target in small.targets]
        return all(name.startswith(HOUSEKEEPING_PREFIXES) for name in names)
    return False


def is_device_type_comparison(comparison: cst.Comparison, facts: ModuleFacts) -> bool:
    """`DEVICE.type == "cuda"` with DEVICE chosen for the current machine: a correct switch for
    a CUDA-only option (what the codemods write), not lock-in."""
    left = comparison.left
    if not (isinstance(left, cst.Attribute) and left.attr.value == "type"):
        return False
    return device_variable(left.value, facts) or is_device_valued(left.value, facts)
