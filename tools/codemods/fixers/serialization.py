"""Fixers for checkpoint loading (TP120, TP121)."""

import libcst as cst

from tools.codemods.build import with_keyword
from tools.codemods.context import FixContext
from tools.codemods.fixers.common import device_object
from tools.scanner.patterns import CudaString
from tools.scanner.site import Site


def fix_map_location(site: Site, context: FixContext) -> str:
    """TP120: load onto the selected device."""
    assert isinstance(site.data, CudaString)
    new = device_object(site.data, site.node, context)
    context.edit(site.node, lambda updated: new)
    return "load the checkpoint onto the selected device"


def fix_load(site: Site, context: FixContext) -> str:
    """TP121: load onto the CPU; load_state_dict copies to the model's device."""
    location = cst.SimpleString('"cpu"')
    context.edit(site.node, lambda updated: with_keyword(updated, "map_location", location))  # type: ignore[arg-type]
    return 'load the checkpoint with map_location="cpu"'
