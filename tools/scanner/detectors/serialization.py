"""Detectors for checkpoint loading (TP120, TP121)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import argument, cuda_string
from tools.scanner.site import Site, site

LOADERS = frozenset({"torch.load", "torch.serialization.load"})


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """`torch.load(..., map_location="cuda:0")` and `torch.load(path)`."""
    if facts.qname(call) not in LOADERS or any(arg.star for arg in call.args):
        return
    location = argument(call, 1, "map_location")
    if location is None:
        yield site("TP121", call)
        return
    found = cuda_string(location.value)
    if found is not None:
        facts.claim(location.value)
        yield site("TP120", location.value, data=found)
    elif isinstance(location.value, cst.Dict):
        strings = [
            node
            for element in location.value.elements
            if isinstance(element, cst.DictElement)
            for node in (element.key, element.value)
            if cuda_string(node)
        ]
        facts.claim(*strings)
        if strings:
            yield site("TP120", location.value, fixable=False)
