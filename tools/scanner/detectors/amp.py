"""Detectors for mixed precision (TP030-TP035)."""

from collections.abc import Iterator

import libcst as cst

from agent.settings import Target
from tools.rules import ACCELERATORS
from tools.scanner.detectors.common import chain, claim_callee
from tools.scanner.facts import ModuleFacts
from tools.scanner.groups import SCALER_CLASSES, scaler_group
from tools.scanner.patterns import argument, cuda_string, keyword
from tools.scanner.site import Site, site

CUDA_AUTOCAST = frozenset({"torch.cuda.amp.autocast", "torch.cuda.amp.autocast_mode.autocast"})
GENERIC_AUTOCAST = frozenset(
    {"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast"}
)
CUDA_CUSTOM = frozenset(
    {
        "torch.cuda.amp.custom_fwd",
        "torch.cuda.amp.custom_bwd",
        "torch.cuda.amp.autocast_mode.custom_fwd",
        "torch.cuda.amp.autocast_mode.custom_bwd",
    }
)
HALF = frozenset({"torch.float16", "torch.half"})


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """Autocast, GradScaler and apex.amp calls."""
    if facts.is_claimed(call):
        return
    qualified = facts.qname(call) or ""
    if qualified in CUDA_AUTOCAST or qualified in GENERIC_AUTOCAST:
        yield from _autocast(call, qualified, facts)
    elif qualified in SCALER_CLASSES:
        yield from _scaler(call, qualified, facts)
    elif qualified.startswith("apex.amp."):
        claim_callee(call, facts)
        yield site("TP035", call)


def _autocast(call: cst.Call, qualified: str, facts: ModuleFacts) -> Iterator[Site]:
    dtype = argument(call, 1, "dtype") if qualified in CUDA_AUTOCAST else keyword_dtype(call)
    if qualified in CUDA_AUTOCAST:
        claim_callee(call, facts)
        _claim_dtype(dtype, facts)
        yield site("TP030", call, fixable=not any(arg.star for arg in call.args))
        return
    device = argument(call, 0, "device_type")
    if device is not None and cuda_string(device.value):
        claim_callee(call, facts)
        facts.claim(device.value)
        _claim_dtype(dtype, facts)
        yield site("TP030", call)
    elif dtype is not None and facts.qname(dtype.value) in HALF:
        _claim_dtype(dtype, facts)
        yield site("TP031", call)


def keyword_dtype(call: cst.Call) -> cst.Arg | None:
    """The `dtype=` of a generic autocast (its second positional argument is `dtype` too)."""
    return argument(call, 1, "dtype")


def _claim_dtype(dtype: cst.Arg | None, facts: ModuleFacts) -> None:
    if dtype is not None:
        facts.claim(*chain(dtype.value))


def _scaler(call: cst.Call, qualified: str, facts: ModuleFacts) -> Iterator[Site]:
    claim_callee(call, facts)
    device = argument(call, 0, "device")
    generic = qualified.startswith("torch.amp.")
    cuda_bound = not generic or device is None or cuda_string(device.value) is not None
    if device is not None and generic:
        facts.claim(device.value)
    group = scaler_group(call, facts)
    removable = ACCELERATORS if group.rewritable else frozenset()
    if cuda_bound:  # agnostic: torch.amp.GradScaler(DEVICE.type); tpu/neuron: removed
        yield site("TP032", call, fixable=removable | {Target.AGNOSTIC}, data=group)
    else:
        yield site("TP032", call, fixable=removable, targets=ACCELERATORS, data=group)
    for use in group.uses:
        facts.claim(use.call, *chain(use.call.func))
        yield site("TP033", use.call, fixable=removable, data=group)


def on_decorator(decorator: cst.Decorator, facts: ModuleFacts) -> Iterator[Site]:
    """`@torch.cuda.amp.custom_fwd(...)` and the bare `@torch.cuda.amp.custom_bwd`."""
    expression = decorator.decorator
    if facts.qname(expression) not in CUDA_CUSTOM:
        return
    facts.claim(expression)
    if isinstance(expression, cst.Call):
        claim_callee(expression, facts)
        cast = keyword(expression, "cast_inputs")
        if cast is not None:
            facts.claim(*chain(cast.value))
    else:
        facts.claim(*chain(expression))
    yield site("TP034", expression)
