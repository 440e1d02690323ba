"""The CUDA-or-CPU device choice (TP001): `torch.device("cuda" if ... else "cpu")`, the bare
string form, and the if/else statement that assigns one or the other."""

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.guards import CUDA_PREDICATES, check_polarity
from tools.scanner.patterns import CudaString, cuda_string, string_value
from tools.scanner.site import Site, site


@dataclass(frozen=True)
class Selection:
    """`"cuda" if torch.cuda.is_available() else "cpu"`: the CUDA literal and the choice node."""

    cuda: CudaString
    choice: cst.IfExp


def selection(node: cst.CSTNode, facts: ModuleFacts) -> Selection | None:
    """The CUDA-or-CPU idiom, in either order (`"cpu" if not ... else "cuda"`)."""
    if not isinstance(node, cst.IfExp):
        return None
    polarity = check_polarity(node.test, facts)
    if polarity == 0 or facts.qname(_first_call(node.test)) not in CUDA_PREDICATES:
        return None
    cuda_side, cpu_side = (node.body, node.orelse) if polarity == 1 else (node.orelse, node.body)
    found = cuda_string(_device_literal(cuda_side, facts))
    if found is None or string_value(_device_literal(cpu_side, facts)) != "cpu":
        return None
    return Selection(found, node)


def _first_call(node: cst.CSTNode) -> cst.CSTNode:
    while isinstance(node, cst.UnaryOperation):
        node = node.expression
    return node


def _device_literal(node: cst.CSTNode, facts: ModuleFacts) -> cst.CSTNode:
    """`"cuda"` for `"cuda"` and for `torch.device("cuda")`."""
    if isinstance(node, cst.Call) and facts.qname(node) == "torch.device" and len(node.args) == 1:
        return node.args[0].value
    return node


def claim_selection(found: Selection, facts: ModuleFacts) -> None:
    facts.claim(*facts.subtree(found.choice))


def on_if_expression(node: cst.IfExp, facts: ModuleFacts) -> Iterator[Site]:
    """The string form `"cuda" if torch.cuda.is_available() else "cpu"` (TP001)."""
    if facts.is_claimed(node):
        return
    found = selection(node, facts)
    if found is not None:
        claim_selection(found, facts)
        yield site("TP001", node, data=found)


def on_if(statement: cst.If, facts: ModuleFacts) -> Iterator[Site]:
    """`if torch.cuda.is_available(): device = "cuda" else: device = "cpu"` (TP001)."""
    found = statement_selection(statement, facts)
    if found is None:
        return
    for part in (statement.test, statement.body, statement.orelse):
        if part is not None:
            facts.claim(*facts.subtree(part))
    yield site("TP001", statement.test, data=found)


@dataclass(frozen=True)
class StatementSelection:
    """The if/else form of the idiom: the statement, the assigned target and the CUDA value."""

    statement: cst.If
    target: cst.BaseAssignTargetExpression
    cuda: CudaString
    wrapped: bool  # torch.device("cuda") rather than "cuda"


def statement_selection(statement: cst.If, facts: ModuleFacts) -> StatementSelection | None:
    """The if/else device choice, when both branches assign the same target."""
    if not isinstance(statement.orelse, cst.Else):
        return None
    polarity = check_polarity(statement.test, facts)
    if polarity == 0 or facts.qname(_first_call(statement.test)) not in CUDA_PREDICATES:
        return None
    branches = (statement.body, statement.orelse.body)
    assigned = [_single_assignment(branch) for branch in branches]
    if assigned[0] is None or assigned[1] is None:
        return None
    cuda_side, cpu_side = assigned if polarity == 1 else assigned[::-1]
    assert cuda_side is not None
    assert cpu_side is not None
    (target, cuda_value), (other, cpu_value) = cuda_side, cpu_side
    if cst.Module([]).code_for_node(target) != cst.Module([]).code_for_node(other):
        return None
    literal = _device_literal(cuda_value, facts)
    found = cuda_string(literal)
    if found is None or string_value(_device_literal(cpu_value, facts)) != "cpu":
        return None
    return StatementSelection(statement, target, found, literal is not cuda_value)


def _single_assignment(
    block: cst.BaseSuite,
) -> tuple[cst.BaseAssignTargetExpression, cst.BaseExpression] | None:
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if len(lines) != 1 or not isinstance(
        lines[0], cst.SimpleStatementLine | cst.SimpleStatementSuite
    ):
        return None
    body = lines[0].body
    if len(body) != 1 or not isinstance(body[0], cst.Assign) or len(body[0].targets) != 1:
        return None
    return body[0].targets[0].target, body[0].value
