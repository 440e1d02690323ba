"""Detectors for Triton, CUDA extensions and CUDA-only custom ops (TP140-TP145)."""

import re
from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import is_guarded_import
from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import keyword, string_value
from tools.scanner.site import Site, site

TRITON_DECORATORS = frozenset(
    {"triton.jit", "triton.autotune", "triton.heuristics", "triton.runtime.jit.jit"}
)
EXTENSION_BUILDERS = frozenset(
    {"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"}
)
CUDA_EXTENSION = "torch.utils.cpp_extension.CUDAExtension"
LIBRARY_REGISTRATIONS = frozenset(
    {"torch.library.impl", "torch.library.register_kernel", "torch.library.custom_op"}
)
CUDA_SOURCE = re.compile(r"\.(cu|cuh)$")
GLOBAL_KERNEL = re.compile(r"__global__\s+[\w:<>,\s*&]*?\b(\w+)\s*\(")


def is_triton_kernel(function: cst.FunctionDef, facts: ModuleFacts) -> bool:
    """A function decorated with @triton.jit / @triton.autotune / @triton.heuristics."""
    return any(
        facts.qname(decorator.decorator) in TRITON_DECORATORS for decorator in function.decorators
    )


def on_function(function: cst.FunctionDef, facts: ModuleFacts) -> Iterator[Site]:
    """A Triton kernel definition (TP140), reported at its name."""
    if is_triton_kernel(function, facts):
        yield site("TP140", function.name)


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """Kernel launches, extension builds and CUDA-only op registrations."""
    qualified = facts.qname(call) or ""
    if isinstance(call.func, cst.Subscript) and _launches_triton(call.func, facts):
        yield site("TP141", call)
    elif (qualified in EXTENSION_BUILDERS and _builds_cuda(call)) or qualified == CUDA_EXTENSION:
        yield site("TP143", call)
    elif qualified in LIBRARY_REGISTRATIONS or _is_library_method(call):
        strings = [
            node for node in _strings_in(call) if (string_value(node) or "").lower() == "cuda"
        ]
        if strings:
            facts.claim(*strings)
            yield site("TP145", call)


def _launches_triton(subscript: cst.Subscript, facts: ModuleFacts) -> bool:
    """`kernel[grid](...)` where `kernel` is a Triton kernel of this module."""
    if not isinstance(subscript.value, cst.Name):
        return False
    for assignment in facts.assignments_of(subscript.value):
        node = getattr(assignment, "node", None)
        if isinstance(node, cst.FunctionDef) and is_triton_kernel(node, facts):
            return True
    return False


def _builds_cuda(call: cst.Call) -> bool:
    if keyword(call, "cuda_sources") or keyword(call, "extra_cuda_cflags"):
        return True
    with_cuda = keyword(call, "with_cuda")
    if with_cuda is not None and isinstance(with_cuda.value, cst.Name):
        return with_cuda.value.value == "True" or _has_cuda_source(call)
    return _has_cuda_source(call)


def _has_cuda_source(call: cst.Call) -> bool:
    return any(CUDA_SOURCE.search(string_value(node) or "") for node in _strings_in(call))


def _is_library_method(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in (
        "impl",
        "register_kernel",
    )


def _strings_in(call: cst.Call) -> list[cst.SimpleString]:
    found: list[cst.SimpleString] = []
    for arg in call.args:
        value = arg.value
        items = value.elements if isinstance(value, cst.List | cst.Tuple) else [value]
        for item in items:
            node = item.value if isinstance(item, cst.BaseElement) else item
            if isinstance(node, cst.SimpleString):
                found.append(node)
    return found


def on_import(statement: cst.Import | cst.ImportFrom, facts: ModuleFacts) -> Iterator[Site]:
    """`import triton` / `from triton import language` outside a try/except ImportError."""
    modules = _imported_modules(statement)
    imports_triton = any(module.split(".")[0] == "triton" for module in modules)
    if imports_triton and not is_guarded_import(statement, facts):
        yield site("TP142", statement)


def _imported_modules(statement: cst.Import | cst.ImportFrom) -> list[str]:
    if isinstance(statement, cst.Import):
        return [cst.Module([]).code_for_node(alias.name) for alias in statement.names]
    if statement.module is None or statement.relative:
        return []
    return [cst.Module([]).code_for_node(statement.module)]


def scan_cuda_source(text: str) -> list[tuple[int, str]]:
    """(line, kernel name) of each `__global__` kernel in CUDA C++ text."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = GLOBAL_KERNEL.search(line)
        if match:
            found.append((number, match.group(1)))
    return found
