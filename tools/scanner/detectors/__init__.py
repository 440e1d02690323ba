"""Detectors by node type. Each is called, in source order, with every node of its type;
earlier entries may claim nodes so that later, more generic ones skip them."""

import libcst as cst

from tools.scanner.detectors import (
    amp,
    compile,
    data,
    device,
    distributed,
    dtype,
    flags,
    kernels,
    libraries,
    memory,
    rng,
    selection,
    serialization,
    sync,
)
from tools.scanner.site import Detector

DETECTORS: dict[type[cst.CSTNode], tuple[Detector, ...]] = {
    cst.Call: (
        device.on_call,
        rng.on_call,
        amp.on_call,
        flags.on_call,
        sync.on_call,
        memory.on_call,
        data.on_call,
        distributed.on_call,
        serialization.on_call,
        compile.on_call,
        kernels.on_call,
        libraries.on_call,
        dtype.on_call,
    ),
    cst.SimpleString: (device.on_string, distributed.on_string),
    cst.FormattedString: (device.on_string,),
    cst.Attribute: (device.on_attribute, sync.on_attribute, dtype.on_reference),
    cst.Name: (device.on_name, dtype.on_reference),
    cst.Assign: (flags.on_assign, compile.on_assign),
    cst.If: (selection.on_if,),
    cst.IfExp: (selection.on_if_expression,),
    cst.FunctionDef: (compile.on_function, kernels.on_function),
    cst.Decorator: (amp.on_decorator,),
    cst.Import: (kernels.on_import, libraries.on_import),
    cst.ImportFrom: (kernels.on_import, libraries.on_import),
}
