"""Detectors for the device rules (TP002-TP012, TP019; TP001 is in selection.py)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import (
    chain,
    claim_callee,
    gate_site,
    in_import,
    is_environment_key,
    is_keyword_value,
)
from tools.scanner.detectors.selection import claim_selection, selection
from tools.scanner.facts import ModuleFacts
from tools.scanner.guards import (
    CUDA_PREDICATES,
    check_polarity,
    is_device_type_comparison,
)
from tools.scanner.patterns import cuda_string, positional, string_value
from tools.scanner.site import Site, site
from tools.scanner.strings import Use, string_use

DEVICE_QUERIES = {
    "torch.cuda.device_count": "TP005",
    "torch.cuda.set_device": "TP006",
    "torch.cuda.current_device": "TP007",
    "torch.cuda.device": "TP008",
}
CAPABILITY_QUERIES = frozenset(
    f"torch.cuda.{name}"
    for name in (
        "get_device_name",
        "get_device_properties",
        "get_device_capability",
        "is_bf16_supported",
        "is_tf32_supported",
        "get_arch_list",
        "get_gencode_flags",
    )
)
TYPED_TENSORS = {
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64",
    "IntTensor": "int32",
    "ShortTensor": "int16",
    "CharTensor": "int8",
    "ByteTensor": "uint8",
    "BoolTensor": "bool",
}
FLOAT_TENSORS = frozenset({"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor"})
ACCELERATOR_SWITCHES = ("pin_memory", "enabled")
# Non-call references to torch.cuda names that a specific rule explains better than TP019.
REFERENCE_RULES = (
    ("torch.cuda.amp.GradScaler", "TP032"),
    ("torch.cuda.amp", "TP030"),
    ("torch.cuda.nvtx", "TP063"),
    ("torch.cuda.Event", "TP061"),
    ("torch.cuda.Stream", "TP062"),
    ("torch.cuda.stream", "TP062"),
    ("torch.cuda.CUDAGraph", "TP064"),
    ("torch.cuda.graph", "TP064"),
    ("torch.cuda.make_graphed_callables", "TP064"),
    ("torch.cuda.manual_seed", "TP020"),
    ("torch.cuda.synchronize", "TP060"),
    ("torch.cuda.is_available", "TP004"),
)


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """Device selection idiom, `.cuda()`, device queries, typed tensors, capability queries."""
    if facts.is_claimed(call):
        return
    qualified = facts.qname(call)
    if qualified == "torch.device" and len(call.args) == 1:
        found = selection(call.args[0].value, facts)
        if found is not None:
            claim_selection(found, facts)
            facts.claim(call)
            yield site("TP001", call, data=found)
            return
    if qualified in DEVICE_QUERIES:
        claim_callee(call, facts)
        check = _count_check(call, facts)
        if check is not None:  # `torch.cuda.device_count() > 1` guards CUDA-only code
            facts.claim(check)
            yield from gate_site(check, facts)
        else:
            yield site(DEVICE_QUERIES[qualified], call, fixable=_query_fixable(call, facts))
    elif qualified in CUDA_PREDICATES:
        claim_callee(call, facts)
        yield from gate_site(
            call, facts, fixable=is_keyword_value(call, facts, *ACCELERATOR_SWITCHES)
        )
    elif qualified in CAPABILITY_QUERIES:
        claim_callee(call, facts)
        yield site("TP012", call)
    elif qualified is not None and qualified.startswith("torch.cuda."):
        yield from _typed_tensor(call, qualified, facts)
    elif qualified == "torch.set_default_tensor_type":
        yield from _default_tensor_type(call, facts)
    else:
        yield from _cuda_method(call, facts)


def _count_check(call: cst.Call, facts: ModuleFacts) -> cst.Comparison | None:
    """The comparison when a CUDA device count is tested (`if torch.cuda.device_count() > 1:`):
    a check like `torch.cuda.is_available()`, not a count to rewrite."""
    parent = facts.parent(call)
    if isinstance(parent, cst.Comparison) and check_polarity(parent, facts) != 0:
        return parent
    return None


def _query_fixable(call: cst.Call, facts: ModuleFacts) -> bool:
    qualified = facts.qname(call)
    if qualified == "torch.cuda.device":
        return isinstance(facts.parent(call), cst.WithItem) and len(call.args) == 1
    if qualified == "torch.cuda.set_device":
        return facts.standalone_line(call) is not None and len(call.args) == 1
    return not call.args or qualified == "torch.cuda.current_device"


def _typed_tensor(call: cst.Call, qualified: str, facts: ModuleFacts) -> Iterator[Site]:
    kind = qualified.removeprefix("torch.cuda.")
    if kind in TYPED_TENSORS:
        claim_callee(call, facts)
        yield site("TP011", call)


def _cuda_tensor_kind(node: cst.CSTNode, facts: ModuleFacts) -> str | None:
    """`FloatTensor` for `torch.cuda.FloatTensor` or the string "torch.cuda.FloatTensor"."""
    name = facts.qname(node) or string_value(node) or ""
    kind = name.removeprefix("torch.cuda.")
    return kind if kind != name and kind in TYPED_TENSORS else None


def _default_tensor_type(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    first = positional(call, 0)
    kind = _cuda_tensor_kind(first.value, facts) if first else None
    if first is None or kind is None:
        return
    facts.claim(*chain(first.value))
    fixable = kind in FLOAT_TENSORS and facts.standalone_line(call) is not None
    yield site("TP010", call, fixable=fixable, data=kind)


def _cuda_method(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    func = call.func
    if not isinstance(func, cst.Attribute) or facts.qname(func.value) == "torch":
        return
    if func.attr.value == "cuda":
        allowed = {"device", "non_blocking", "memory_format"}
        extra = [arg for arg in call.args if arg.keyword and arg.keyword.value not in allowed]
        too_many = len([arg for arg in call.args if not arg.keyword]) > 1
        fixable = not extra and not too_many and not any(arg.star for arg in call.args)
        yield site("TP002", call, fixable=fixable)
    elif func.attr.value == "type" and len(call.args) == 1 and not call.args[0].keyword:
        kind = _cuda_tensor_kind(call.args[0].value, facts)
        if kind is not None:
            facts.claim(*chain(call.args[0].value))
            yield site("TP010", call, data=kind)


def on_string(node: cst.SimpleString | cst.FormattedString, facts: ModuleFacts) -> Iterator[Site]:
    """ "cuda" device strings (TP003) and comparisons with "cuda" (TP004)."""
    if facts.is_claimed(node):
        return
    found = cuda_string(node)
    if found is None:
        if string_value(node) == "CUDA_VISIBLE_DEVICES" and is_environment_key(node, facts):
            yield site("TP009", node)
        return
    use = string_use(node, facts)
    if use is None:
        return
    if use.use is Use.COMPARISON:
        comparison = use.anchor
        if isinstance(comparison, cst.Comparison) and not facts.is_claimed(comparison):
            facts.claim(comparison)
            device_check = check_polarity(comparison, facts) != 0
            if device_check and not is_device_type_comparison(comparison, facts):
                yield from gate_site(comparison, facts)
    elif use.use in (Use.DEVICE_CALL, Use.DEVICE_ARG, Use.DEVICE_TYPE, Use.DEVICE_VALUE):
        yield site("TP003", node, data=(use, found))


def on_attribute(node: cst.Attribute, facts: ModuleFacts) -> Iterator[Site]:
    """`x.is_cuda` checks (TP004) and any other torch.cuda reference (TP019)."""
    if facts.is_claimed(node):
        return
    if node.attr.value == "is_cuda":
        facts.claim(node)
        yield from gate_site(node, facts)
        return
    yield from _cuda_reference(node, facts)


def on_name(node: cst.Name, facts: ModuleFacts) -> Iterator[Site]:
    """A name imported from torch.cuda and used without a call a rule knows (TP019)."""
    if not facts.is_claimed(node):
        yield from _cuda_reference(node, facts)


def _cuda_reference(node: cst.Name | cst.Attribute, facts: ModuleFacts) -> Iterator[Site]:
    parent = facts.parent(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return  # only the outermost part of a dotted name
    qualified = facts.qname(node)
    if qualified is None or not (qualified == "torch.cuda" or qualified.startswith("torch.cuda.")):
        return
    if in_import(node, facts):
        return
    facts.claim(*chain(node))
    code = next((code for prefix, code in REFERENCE_RULES if qualified.startswith(prefix)), None)
    yield site(code or "TP019", node, fixable=False, message=f"`{qualified}` needs CUDA")
