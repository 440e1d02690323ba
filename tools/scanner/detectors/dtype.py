"""Detectors for float64 and float16 on bf16-native targets (TP170-TP172)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import chain
from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import keyword, method_call, positional
from tools.scanner.site import Site, site

DOUBLE = frozenset({"torch.float64", "torch.double"})
HALF = frozenset({"torch.float16", "torch.half"})
LEGACY = {"torch.DoubleTensor": "TP170", "torch.HalfTensor": "TP172"}
TENSOR_FROM_NUMPY = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.tensor"})
NUMPY_FLOAT64 = frozenset(
    f"numpy.{name}"
    for name in (
        "random.randn",
        "random.rand",
        "random.random",
        "random.normal",
        "random.uniform",
        "random.standard_normal",
        "random.random_sample",
        "linspace",
        "zeros",
        "ones",
        "empty",
        "eye",
        "identity",
        "loadtxt",
        "genfromtxt",
    )
)
# Walking up from a dtype reference: these make it a value the program computes with.
VALUE_CONTEXTS = (cst.Arg, cst.Assign, cst.AnnAssign, cst.Return, cst.Param, cst.DictElement)
# ... and these make it something the program compares or looks up (left alone).
TEST_CONTEXTS = (cst.Comparison, cst.Subscript, cst.If, cst.While, cst.Assert)


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """`.double()`, `.half()`, legacy typed tensors, NumPy float64 arrays made into tensors."""
    if facts.is_claimed(call):
        return
    if method_call(call, "double") and not call.args:
        yield site("TP170", call)
    elif method_call(call, "half") and not call.args:
        yield site("TP172", call)
    qualified = facts.qname(call) or ""
    if qualified in LEGACY:
        facts.claim(*chain(call.func))
        yield site(LEGACY[qualified], call, fixable=False)
    elif qualified in TENSOR_FROM_NUMPY and _numpy_float64(call, qualified, facts):
        yield site("TP171", call, data=qualified)


def _numpy_float64(call: cst.Call, qualified: str, facts: ModuleFacts) -> bool:
    first = positional(call, 0)
    if first is None or not isinstance(first.value, cst.Call):
        return False
    source = first.value
    if facts.qname(source) not in NUMPY_FLOAT64 or keyword(source, "dtype"):
        return False
    if qualified != "torch.from_numpy":
        return keyword(call, "dtype") is None
    converted = facts.parent(call)
    return not (
        isinstance(converted, cst.Attribute) and converted.attr.value in ("float", "to", "bfloat16")
    )


def on_reference(node: cst.Attribute | cst.Name, facts: ModuleFacts) -> Iterator[Site]:
    """`torch.float64` / `torch.float16` used as a value (not compared, not a lookup key)."""
    if facts.is_claimed(node):
        return
    qualified = facts.qname(node)
    if qualified in DOUBLE:
        code = "TP170"
    elif qualified in HALF:
        code = "TP172"
    else:
        return
    facts.claim(*chain(node))
    if _used_as_value(node, facts):
        yield site(code, node)


def _used_as_value(node: cst.CSTNode, facts: ModuleFacts) -> bool:
    child = node
    for parent in facts.ancestors(node):
        if isinstance(parent, cst.DictElement) and child is parent.key:
            return False
        if isinstance(parent, TEST_CONTEXTS):
            return False
        if isinstance(parent, VALUE_CONTEXTS):
            return True
        if isinstance(parent, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            return False
        child = parent
    return False
