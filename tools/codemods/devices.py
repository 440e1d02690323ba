"""Which name holds the device at a site: a device variable in scope, else the module's DEVICE.

A variable counts when its name says it holds a device (`device`, `dev`, `train_device`), every
assignment to it in its scope is a device chosen for the current machine (`torch.device(...)`,
`torch.accelerator.current_accelerator(...) or ...`), it is assigned before the site (or the
site is in a function that runs later), and no inner scope rebinds the name.
"""

import libcst as cst
from libcst.metadata import BaseAssignment, ClassScope, ComprehensionScope, GlobalScope, Scope

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import is_device_valued

DEVICE_CONSTANT = "DEVICE"
FALLBACK_CONSTANT = "TORCHPORT_DEVICE"


def device_name_at(node: cst.CSTNode, facts: ModuleFacts) -> str | None:
    """The device variable visible at `node`, or None."""
    scope = facts.scope(node)
    index = _indexes(facts)
    site = index.get(node, len(index))
    shadowed: set[str] = set()
    must_precede = True
    while scope is not None:
        bindings = _bindings(scope)
        found = _best(bindings, shadowed, site if must_precede else None, node, facts)
        if found is not None:
            return found
        shadowed |= bindings.keys()
        if isinstance(scope, GlobalScope):
            return None
        must_precede = isinstance(scope, ClassScope | ComprehensionScope)
        scope = scope.parent
        while isinstance(scope, ClassScope) and not must_precede:
            scope = scope.parent  # methods do not see class-body names
    return None


def _indexes(facts: ModuleFacts) -> dict[cst.CSTNode, int]:
    if "order" not in facts.analyses:
        facts.analyses["order"] = {node: number for number, node in enumerate(facts.order)}
    return facts.analyses["order"]


def _bindings(scope: Scope) -> dict[str, list[BaseAssignment]]:
    by_name: dict[str, list[BaseAssignment]] = {}
    for assignment in scope.assignments:
        by_name.setdefault(assignment.name, []).append(assignment)
    return by_name


def _best(
    bindings: dict[str, list[BaseAssignment]],
    shadowed: set[str],
    before: int | None,
    site: cst.CSTNode,
    facts: ModuleFacts,
) -> str | None:
    """The device variable to use: in the site's own scope the latest one assigned before the
    site; in an enclosing scope (a function runs after the module is set up) the one named most
    like a device."""
    index = _indexes(facts)
    inside = set(facts.ancestors(site))
    best: tuple[object, ...] | None = None
    for name, assignments in bindings.items():
        if name in shadowed or "dev" not in name.lower() or not _all_devices(assignments, facts):
            continue
        nodes = [getattr(item, "node", None) for item in assignments]
        places = [
            index.get(node, -1)
            for node in nodes
            if node is not None and facts.statement_of(node) not in inside
        ]
        usable = [place for place in places if before is None or place < before]
        if not usable:
            continue
        named = (name == "device", "device" in name.lower())
        rank = (max(usable), *named) if before is not None else (*named, max(usable))
        if best is None or (*rank, name) > best:
            best = (*rank, name)
    return str(best[-1]) if best else None


def _all_devices(assignments: list[BaseAssignment], facts: ModuleFacts) -> bool:
    for assignment in assignments:
        value = facts.assigned_value(assignment)
        if value is None or not is_device_valued(value, facts):
            return False
    return True


def constant_name(facts: ModuleFacts) -> tuple[str, bool]:
    """The module-level device constant's name and whether it already exists."""
    scope = facts.scope(facts.module)
    if scope is None:
        return DEVICE_CONSTANT, False
    bindings = _bindings(scope)
    for name in (DEVICE_CONSTANT, FALLBACK_CONSTANT):
        if name not in bindings:
            return name, False
        if _all_devices(bindings[name], facts):
            return name, True
    return FALLBACK_CONSTANT, False
