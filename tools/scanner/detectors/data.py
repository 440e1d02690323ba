"""Detectors for pinned memory (TP090, TP091)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import keyword, method_call
from tools.scanner.site import Site, site


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """`pin_memory=True`, `pin_memory_device="cuda"` and `x.pin_memory()`."""
    pinned = keyword(call, "pin_memory")
    if pinned is not None and isinstance(pinned.value, cst.Name) and pinned.value.value == "True":
        yield site("TP090", pinned.value, data=call)
    device = keyword(call, "pin_memory_device")
    if device is not None and isinstance(device.value, cst.SimpleString | cst.FormattedString):
        facts.claim(device.value)
        yield site("TP090", device.value, data=call)
    method = method_call(call, "pin_memory")
    if method is not None and not call.args and not _pinned_when_available(call, facts):
        receiver = method.value
        simple = isinstance(receiver, cst.Name | cst.Attribute) and _is_dotted_name(receiver)
        yield site("TP091", call, fixable=simple)


def _is_dotted_name(node: cst.CSTNode) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _pinned_when_available(call: cst.Call, facts: ModuleFacts) -> bool:
    """Already `x.pin_memory() if torch.accelerator.is_available() else x`."""
    parent = facts.parent(call)
    return (
        isinstance(parent, cst.IfExp)
        and parent.body is call
        and facts.qname(parent.test) == "torch.accelerator.is_available"
    )
