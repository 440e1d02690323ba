"""Detectors for torch.compile and Inductor settings (TP130-TP133)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import chain
from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import keyword, positional, string_value
from tools.scanner.site import Site, site

CUDA_MODES = frozenset({"max-autotune", "reduce-overhead", "max-autotune-no-cudagraphs"})
CUDA_BACKENDS = frozenset({"inductor", "cudagraphs"})
INDUCTOR_SWITCHES = frozenset(
    f"torch._inductor.config.{name}"
    for name in (
        "max_autotune",
        "max_autotune_gemm",
        "max_autotune_pointwise",
        "coordinate_descent_tuning",
    )
)


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """`torch.compile(mode="max-autotune")` and `backend="inductor"`."""
    if facts.qname(call) != "torch.compile":
        return
    mode = keyword(call, "mode")
    if mode is not None and string_value(mode.value) in CUDA_MODES:
        yield site("TP130", mode.value, data=call)
    backend = keyword(call, "backend")
    if backend is not None and string_value(backend.value) in CUDA_BACKENDS:
        yield site("TP131", backend.value, data=call)


def on_function(function: cst.FunctionDef, facts: ModuleFacts) -> Iterator[Site]:
    """`@torch.inference_mode()` on a function that torch.compile compiles (TP132)."""
    names = [facts.qname(decorator.decorator) for decorator in function.decorators]
    if "torch.inference_mode" not in names:
        return
    compiled = "torch.compile" in names or function.name.value in _compiled_names(facts)
    if not compiled:
        return
    decorator = function.decorators[names.index("torch.inference_mode")].decorator
    yield site("TP132", decorator)


def _compiled_names(facts: ModuleFacts) -> frozenset[str]:
    """Names passed to `torch.compile(...)` anywhere in the module."""
    if "compiled" not in facts.analyses:
        names = set()
        for call in facts.nodes_of(cst.Call):
            first = positional(call, 0)
            if first and isinstance(first.value, cst.Name) and facts.qname(call) == "torch.compile":
                names.add(first.value.value)
        facts.analyses["compiled"] = frozenset(names)
    return facts.analyses["compiled"]


def on_assign(assign: cst.Assign, facts: ModuleFacts) -> Iterator[Site]:
    """`torch._inductor.config.triton.cudagraphs = True` and the max-autotune switches."""
    if len(assign.targets) != 1:
        return
    target = assign.targets[0].target
    qualified = facts.qname(target) or ""
    if qualified.startswith("torch._inductor.config.triton.") or qualified in INDUCTOR_SWITCHES:
        facts.claim(*chain(target))
        yield site("TP133", assign, fixable=facts.single_statement_line(assign) is not None)
