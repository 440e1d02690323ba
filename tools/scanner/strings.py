"""What a string literal is used for: a device, a process-group backend, or a comparison.

"cuda" in a log message is not lock-in; "cuda" passed to `torch.device`, as `device=`, to
`.to()`, stored in a variable or config entry that holds the device, or compared with a device
type is. The classification follows the literal through conditional expressions
(`"cuda" if args.gpu else "cpu"`) to where the value goes.
"""

from dataclasses import dataclass
from enum import StrEnum

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import dotted_target_name, positional, string_value

DEVICE_CALL_FIRST_ARG = frozenset({"torch.set_default_device", "torch.get_device_module"})
DEVICE_TYPE_FIRST_ARG = frozenset(
    {"torch.distributed.device_mesh.init_device_mesh", "torch.distributed.init_device_mesh"}
)
PROCESS_GROUP_CALLS = frozenset(
    {
        "torch.distributed.init_process_group",
        "torch.distributed.new_group",
        "torch.distributed.distributed_c10d.init_process_group",
        "torch.distributed.distributed_c10d.new_group",
    }
)


class Use(StrEnum):
    """How a string literal is used."""

    DEVICE_CALL = "device-call"  # the type argument of torch.device(...)
    DEVICE_ARG = "device-arg"  # device=, .to(...), set_default_device(...)
    DEVICE_TYPE = "device-type"  # a device type string: device_type=, init_device_mesh(...)
    DEVICE_VALUE = "device-value"  # stored: variable, attribute, config entry, default
    BACKEND_ARG = "backend-arg"  # init_process_group("nccl") / backend="nccl"
    BACKEND_VALUE = "backend-value"  # stored under a backend name
    COMPARISON = "comparison"


@dataclass(frozen=True)
class StringUse:
    """A classified use and the node it hangs on (the call, assignment or comparison)."""

    use: Use
    anchor: cst.CSTNode


def string_use(node: cst.CSTNode, facts: ModuleFacts) -> StringUse | None:
    """How the literal `node` is used, or None for uses that do not matter (messages, keys)."""
    child = node
    parent = facts.parent(child)
    while isinstance(parent, cst.IfExp) and child is not parent.test:
        child, parent = parent, facts.parent(parent)
    if isinstance(parent, cst.Arg):
        return _argument_use(parent, facts)
    if isinstance(parent, cst.Comparison | cst.ComparisonTarget):
        comparison = parent if isinstance(parent, cst.Comparison) else facts.parent(parent)
        return StringUse(Use.COMPARISON, comparison) if comparison else None
    holder = _stored_under(parent, child, facts)
    if holder is None:
        return None
    name, anchor = holder
    lowered = name.lower()
    if "backend" in lowered:
        return StringUse(Use.BACKEND_VALUE, anchor)
    if "device" in lowered or _flows_to_device(anchor, facts):
        return StringUse(Use.DEVICE_VALUE, anchor)
    return None


def _argument_use(arg: cst.Arg, facts: ModuleFacts) -> StringUse | None:
    call = facts.parent(arg)
    if not isinstance(call, cst.Call):
        return None
    name = arg.keyword.value if arg.keyword else None
    first = positional(call, 0) is arg
    qualified = facts.qname(call)
    if qualified == "torch.device" and (first or name == "type"):
        return StringUse(Use.DEVICE_CALL, call)
    if name in ("device", "pin_memory_device"):
        return StringUse(Use.DEVICE_ARG, call)
    if name == "device_type" or (first and qualified in DEVICE_TYPE_FIRST_ARG):
        return StringUse(Use.DEVICE_TYPE, call)
    if first and (qualified in DEVICE_CALL_FIRST_ARG or _is_to_call(call)):
        return StringUse(Use.DEVICE_ARG, call)
    if qualified in PROCESS_GROUP_CALLS and (first or name == "backend"):
        return StringUse(Use.BACKEND_ARG, call)
    if name == "default" and isinstance(call.func, cst.Attribute):
        option = positional(call, 0)
        flag = string_value(option.value) if option else None
        if call.func.attr.value == "add_argument" and flag:
            if "backend" in flag:
                return StringUse(Use.BACKEND_VALUE, call)
            if "device" in flag:
                return StringUse(Use.DEVICE_VALUE, call)
    return None


def _is_to_call(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "to"


def _stored_under(
    parent: cst.CSTNode | None, child: cst.CSTNode, facts: ModuleFacts
) -> tuple[str, cst.CSTNode] | None:
    """The name a stored value is kept under: an assignment target, a dict key, a parameter."""
    if isinstance(parent, cst.Assign) and child is parent.value and len(parent.targets) == 1:
        name = dotted_target_name(parent.targets[0].target)
        return (name, parent) if name else None
    if isinstance(parent, cst.AnnAssign) and child is parent.value:
        name = dotted_target_name(parent.target)
        return (name, parent) if name else None
    if isinstance(parent, cst.DictElement) and child is parent.value:
        key = string_value(parent.key)
        return (key, parent) if key else None
    if isinstance(parent, cst.Param) and child is parent.default:
        return parent.name.value, parent
    return None


def _flows_to_device(anchor: cst.CSTNode, facts: ModuleFacts) -> bool:
    """`dev = "cuda"` followed by `.to(dev)`, `device=dev` or `torch.device(dev)`."""
    if not isinstance(anchor, cst.Assign):
        return False
    target = anchor.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    scope = facts.scope(target)
    if scope is None:
        return False
    for assignment in scope.assignments[target.value]:
        if getattr(assignment, "node", None) is not target:
            continue
        for access in assignment.references:
            use = facts.parent(access.node)
            if isinstance(use, cst.Arg):
                found = _argument_use(use, facts)
                if found and found.use in (Use.DEVICE_CALL, Use.DEVICE_ARG):
                    return True
    return False
