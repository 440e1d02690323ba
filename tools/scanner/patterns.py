"""Small predicates over libcst nodes shared by detectors and codemods."""

import re
from dataclasses import dataclass

import libcst as cst

from tools.scanner.facts import ModuleFacts

CUDA_DEVICE = re.compile(r"^cuda(?::(\d+))?$")
DEVICE_FACTORIES = frozenset({"torch.device"})
ACCELERATOR_DEVICE = frozenset({"torch.accelerator.current_accelerator"})


def string_value(node: cst.CSTNode) -> str | None:
    """The text of a plain (non-bytes, non-f) string literal."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


@dataclass(frozen=True)
class CudaString:
    """A literal naming the CUDA device: "cuda", "cuda:1" or f"cuda:{rank}"."""

    node: cst.SimpleString | cst.FormattedString
    index: str | None = None  # the literal index of "cuda:1"
    index_expression: cst.BaseExpression | None = None  # the expression of f"cuda:{rank}"


def cuda_string(node: cst.CSTNode) -> CudaString | None:
    """The CUDA device named by a string literal, if it names one."""
    if isinstance(node, cst.SimpleString):
        match = CUDA_DEVICE.match(string_value(node) or "")
        return CudaString(node, match.group(1)) if match else None
    if isinstance(node, cst.FormattedString) and node.parts:
        first = node.parts[0]
        if not isinstance(first, cst.FormattedStringText):
            return None
        if first.value == "cuda" and len(node.parts) == 1:
            return CudaString(node)
        if first.value == "cuda:" and len(node.parts) == 2:
            expression = node.parts[1]
            if isinstance(expression, cst.FormattedStringExpression) and not expression.format_spec:
                return CudaString(node, index_expression=expression.expression)
    return None


def is_string(node: cst.CSTNode, *values: str) -> bool:
    """Whether `node` is a string literal equal to one of `values`."""
    return string_value(node) in values


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    """The `name=` argument of a call."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call, index: int) -> cst.Arg | None:
    """The index-th positional argument (None past the end or at a `*args`)."""
    count = 0
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            if arg.star:
                return None
            continue
        if count == index:
            return arg
        count += 1
    return None


def argument(call: cst.Call, index: int, name: str) -> cst.Arg | None:
    """An argument given by position or by keyword."""
    return keyword(call, name) or positional(call, index)


def method_call(node: cst.CSTNode, *names: str) -> cst.Attribute | None:
    """The `obj.name` callee when `node` is a call of a method named one of `names`."""
    func = node.func if isinstance(node, cst.Call) else None
    return func if isinstance(func, cst.Attribute) and func.attr.value in names else None


def is_device_valued(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    """Whether the expression evaluates to a torch.device chosen for the current machine
    (`torch.device(...)`, `torch.accelerator.current_accelerator(...) or torch.device("cpu")`)."""
    if isinstance(node, cst.Call):
        return facts.qname(node) in DEVICE_FACTORIES | ACCELERATOR_DEVICE
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
        return is_device_valued(node.left, facts)
    if isinstance(node, cst.IfExp):
        return is_device_valued(node.body, facts) and is_device_valued(node.orelse, facts)
    return False


def device_variable(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    """Whether `node` is a Name bound only to device-valued expressions."""
    if not isinstance(node, cst.Name):
        return False
    assignments = facts.assignments_of(node)
    values = [facts.assigned_value(assignment) for assignment in assignments]
    return bool(values) and all(
        value is not None and is_device_valued(value, facts) for value in values
    )


def dotted_target_name(node: cst.CSTNode) -> str | None:
    """A name to judge an assignment target by: `device`, `self.device`, `cfg["device"]`."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index):
            return string_value(index.value)
    return None


def needs_parentheses(node: cst.CSTNode) -> bool:
    """Whether an expression must be parenthesised to be used as `x.attr` or an operand."""
    atomic = (
        cst.Name,
        cst.Attribute,
        cst.Call,
        cst.Subscript,
        cst.SimpleString,
        cst.Integer,
        cst.Float,
        cst.List,
        cst.Tuple,
        cst.Dict,
    )
    return not isinstance(node, atomic) or bool(getattr(node, "lpar", ()))
