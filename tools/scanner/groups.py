"""Objects whose every use must be rewritten together: GradScalers and CUDA timing events.

A GradScaler can be removed on bf16 targets only if each of its uses is a call the codemod
knows how to rewrite (`scale`, `step`, `update`, `unscale_`, ...); a CUDA event can become a
`time.perf_counter()` stamp only if it is only recorded, synchronised and measured against
another such event. Each analysis runs once per module and is cached on the ModuleFacts.
"""

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import keyword, positional

SCALER_CLASSES = frozenset(
    {
        "torch.cuda.amp.GradScaler",
        "torch.cuda.amp.grad_scaler.GradScaler",
        "torch.amp.GradScaler",
        "torch.amp.grad_scaler.GradScaler",
    }
)
EVENT_CLASSES = frozenset({"torch.cuda.Event", "torch.cuda.streams.Event"})
# method -> True when the call must be a whole statement (it is deleted), False when its value
# is replaced by an expression.
SCALER_METHODS = {
    "scale": False,
    "step": False,
    "get_scale": False,
    "is_enabled": False,
    "state_dict": False,
    "update": True,
    "unscale_": True,
    "load_state_dict": True,
}


@dataclass(frozen=True)
class MethodUse:
    """A call `obj.method(...)` on a tracked object; `line` when it is a whole statement."""

    call: cst.Call
    method: str
    line: cst.SimpleStatementLine | None


@dataclass(frozen=True)
class ObjectGroup:
    """A tracked object: its constructor statement, its method calls, and whether the codemod
    may rewrite all of them (`rewritable`)."""

    constructor: cst.Call
    statement: cst.SimpleStatementLine | None
    uses: tuple[MethodUse, ...]
    rewritable: bool
    name: str | None = None


UseClassifier = Callable[[cst.CSTNode, ModuleFacts], MethodUse | None]


def scaler_group(constructor: cst.Call, facts: ModuleFacts) -> ObjectGroup:
    """The GradScaler built by `constructor` and its uses."""
    groups: dict[cst.Call, ObjectGroup] = facts.analyses.setdefault("scalers", {})
    if constructor not in groups:
        groups[constructor] = _group(constructor, facts, _scaler_use)
    return groups[constructor]


def _scaler_use(reference: cst.CSTNode, facts: ModuleFacts) -> MethodUse | None:
    use = _method_use(reference, facts)
    if use is None or use.method not in SCALER_METHODS:
        return None
    if SCALER_METHODS[use.method] and use.line is None:
        return None
    if use.method == "scale" and (len(use.call.args) != 1 or use.call.args[0].keyword):
        return None
    if use.method == "step" and positional(use.call, 0) is None:
        return None
    return use


def event_groups(facts: ModuleFacts) -> dict[cst.Call, ObjectGroup]:
    """Every `torch.cuda.Event(...)` of the module, with whether it can become a timestamp."""
    if "events" in facts.analyses:
        return facts.analyses["events"]
    groups = {
        call: _group(call, facts, _event_use)
        if is_timing_event(call)
        else ObjectGroup(call, None, (), False)
        for call in facts.nodes_of(cst.Call)
        if facts.qname(call) in EVENT_CLASSES
    }
    by_name: dict[str | None, ObjectGroup] = {
        group.name: group for group in groups.values() if group.name
    }
    changed = True
    while changed:  # an elapsed_time needs its partner event to be rewritable too
        changed = False
        for call, group in groups.items():
            if group.rewritable and not _partners_rewritable(group, by_name):
                groups[call] = by_name[group.name or ""] = _unrewritable(group)
                changed = True
    facts.analyses["events"] = groups
    return groups


def _event_use(reference: cst.CSTNode, facts: ModuleFacts) -> MethodUse | None:
    use = _method_use(reference, facts)
    if use is None:
        return _measured_against(reference, facts)
    if use.method in ("record", "synchronize"):
        return use if use.line is not None and not use.call.args else None
    if use.method == "elapsed_time":
        other = positional(use.call, 0)
        return use if other is not None and isinstance(other.value, cst.Name) else None
    return None


def _measured_against(reference: cst.CSTNode, facts: ModuleFacts) -> MethodUse | None:
    """The `end` of `start.elapsed_time(end)` (the role `measured`)."""
    arg = facts.parent(reference)
    call = facts.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    if call.func.attr.value != "elapsed_time" or not isinstance(call.func.value, cst.Name):
        return None
    return MethodUse(call, "measured", None)


def _partner_name(use: MethodUse) -> str | None:
    """The other event of an `elapsed_time` call."""
    if use.method == "elapsed_time":
        other = positional(use.call, 0)
        return other.value.value if other and isinstance(other.value, cst.Name) else None
    if use.method == "measured" and isinstance(use.call.func, cst.Attribute):
        receiver = use.call.func.value
        return receiver.value if isinstance(receiver, cst.Name) else None
    return None


def _partners_rewritable(group: ObjectGroup, by_name: dict[str | None, ObjectGroup]) -> bool:
    for use in group.uses:
        if use.method in ("elapsed_time", "measured"):
            partner = by_name.get(_partner_name(use))
            if partner is None or not partner.rewritable:
                return False
    return True


def _unrewritable(group: ObjectGroup) -> ObjectGroup:
    return ObjectGroup(group.constructor, group.statement, group.uses, False, group.name)


def is_timing_event(call: cst.Call) -> bool:
    """`torch.cuda.Event(enable_timing=True)`."""
    flag = keyword(call, "enable_timing")
    return flag is not None and isinstance(flag.value, cst.Name) and flag.value.value == "True"


def _method_use(reference: cst.CSTNode, facts: ModuleFacts) -> MethodUse | None:
    attribute = facts.parent(reference)
    if not isinstance(attribute, cst.Attribute) or attribute.value is not reference:
        return None
    call = facts.parent(attribute)
    if not isinstance(call, cst.Call) or call.func is not attribute:
        return None
    return MethodUse(call, attribute.attr.value, facts.standalone_line(call))


def _group(constructor: cst.Call, facts: ModuleFacts, classify: UseClassifier) -> ObjectGroup:
    assign = facts.parent(constructor)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return ObjectGroup(constructor, None, (), False)
    statement = facts.single_statement_line(assign)
    target = assign.targets[0].target
    references = _references(target, assign, facts)
    if statement is None or references is None:
        return ObjectGroup(constructor, statement, (), False)
    uses = [classify(reference, facts) for reference in references]
    found = tuple(use for use in uses if use is not None)
    name = target.value if isinstance(target, cst.Name) else None
    return ObjectGroup(constructor, statement, found, len(found) == len(uses), name)


def _references(
    target: cst.BaseAssignTargetExpression, assign: cst.Assign, facts: ModuleFacts
) -> list[cst.CSTNode] | None:
    """Every read of the assigned name (`scaler`) or attribute (`self.scaler` in its class)."""
    if isinstance(target, cst.Name):
        scope = facts.scope(target)
        if scope is None:
            return None
        for assignment in scope.assignments[target.value]:
            if getattr(assignment, "node", None) is target:
                return [access.node for access in assignment.references]
        return None
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
        owner = target.value.value
        if owner != "self":
            return None
        klass = facts.enclosing(assign, cst.ClassDef)
        if klass is None:
            return None
        return [
            node
            for node in facts.nodes_of(cst.Attribute)
            if node is not target
            and node.attr.value == target.attr.value
            and isinstance(node.value, cst.Name)
            and node.value.value == owner
            and klass in facts.ancestors(node)
        ]
    return None
