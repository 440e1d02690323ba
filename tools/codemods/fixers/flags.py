"""Fixers for backend flags (TP050-TP053)."""

import libcst as cst

from tools.codemods.build import code, with_keyword
from tools.codemods.context import FixContext
from tools.scanner.patterns import argument, string_value
from tools.scanner.site import Site


def _line(site: Site, context: FixContext) -> cst.SimpleStatementLine:
    """The statement line of a flag assignment or switch call; its imports may go unused."""
    node = site.node
    context.release(node.targets[0].target if isinstance(node, cst.Assign) else node)
    line = (
        context.facts.single_statement_line(node)
        if isinstance(node, cst.Assign)
        else context.facts.standalone_line(node)
    )
    assert line is not None
    return line


def _replace_line(
    line: cst.SimpleStatementLine, new: cst.BaseStatement, context: FixContext
) -> None:
    def replace(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.SimpleStatementLine)
        return new.with_changes(leading_lines=updated.leading_lines)

    context.edit(line, replace)


def fix_cudnn(site: Site, context: FixContext) -> str:
    """TP050: delete cuDNN flags; `deterministic = X` becomes use_deterministic_algorithms(X)."""
    line = _line(site, context)
    assign = site.node
    assert isinstance(assign, cst.Assign)
    if site.data == "torch.backends.cudnn.deterministic":

        def deterministic(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.SimpleStatementLine)
            value = updated.body[0].value  # type: ignore[attr-defined]
            new = context.statement("torch.use_deterministic_algorithms({v})\n", v=value)
            return new.with_changes(leading_lines=updated.leading_lines)

        context.edit(line, deterministic)
        return "ask for deterministic algorithms on every backend"
    context.remove_line(line)
    return "drop a cuDNN flag (no cuDNN on the target)"


def fix_tf32(site: Site, context: FixContext) -> str:
    """TP051: `allow_tf32 = X` -> torch.set_float32_matmul_precision; cuDNN TF32 dropped."""
    line = _line(site, context)
    assign = site.node
    assert isinstance(assign, cst.Assign)
    if not str(site.data).startswith("torch.backends.cuda.matmul."):
        context.remove_line(line)
        return "drop a cuDNN TF32 flag (no cuDNN on the target)"
    precision = _precision(assign.value, str(site.data))
    new = context.statement("torch.set_float32_matmul_precision({p})\n", p=precision)
    _replace_line(line, new, context)
    return "set the float32 matmul precision"


def _precision(value: cst.BaseExpression, flag: str) -> cst.BaseExpression:
    """ "high" when TF32 is allowed, "highest" when not (IEEE float32)."""
    if flag.endswith("fp32_precision"):
        text = string_value(value)
        if text is not None:
            return cst.SimpleString('"high"' if text == "tf32" else '"highest"')
        return cst.parse_expression(f'"high" if {code(value)} == "tf32" else "highest"')
    if code(value) in ("True", "False"):
        return cst.SimpleString('"high"' if code(value) == "True" else '"highest"')
    return cst.parse_expression(f'"high" if {code(value)} else "highest"')


def fix_sdpa_forcing(site: Site, context: FixContext) -> str:
    """TP052: drop the kernel forcing (tpu/neuron); add the math fallback (agnostic)."""
    call = site.node
    assert isinstance(call, cst.Call)
    if context.bf16_target:
        return _unwrap(call, context)
    if context.facts.qname(call) == "torch.backends.cuda.sdp_kernel":
        context.edit(call, lambda updated: with_keyword(updated, "enable_math", cst.Name("True")))  # type: ignore[arg-type]
        return "allow the math kernel as a fallback"
    backends = argument(call, 0, "backends")
    assert backends is not None
    context.edit(backends.value, lambda updated: _with_math(updated))
    return "allow the math kernel as a fallback"


def _with_math(value: cst.CSTNode) -> cst.CSTNode:
    """`[SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]` from one backend or a list of them."""
    assert isinstance(value, cst.BaseExpression)
    items = list(value.elements) if isinstance(value, cst.List | cst.Tuple) else []
    first = items[0].value if items else value
    prefix = first.value if isinstance(first, cst.Attribute) else cst.Name("SDPBackend")
    math = cst.Element(value=cst.Attribute(value=prefix, attr=cst.Name("MATH")))
    elements = items or [cst.Element(value=value)]
    fixed = [
        element.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        for element in elements
    ]
    return cst.List(elements=[*fixed, math])


def _unwrap(call: cst.Call, context: FixContext) -> str:
    context.release(call.func)
    for arg in call.args:
        for element in arg.value.elements if isinstance(arg.value, cst.List | cst.Tuple) else []:
            context.release(element.value)
        context.release(arg.value)
    item = context.facts.parent(call)
    assert isinstance(item, cst.WithItem)
    statement = context.facts.parent(item)
    assert isinstance(statement, cst.With)
    if len(statement.items) > 1:

        def drop_item(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.With)
            kept = [
                new
                for new, old in zip(updated.items, statement.items, strict=True)
                if old is not item
            ]
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(items=kept)

        context.edit(statement, drop_item)
        return "drop the SDPA kernel forcing"

    def flatten(updated: cst.CSTNode) -> cst.CSTNode | cst.FlattenSentinel[cst.CSTNode]:
        assert isinstance(updated, cst.With)
        body = updated.body
        if not isinstance(body, cst.IndentedBlock):
            return updated
        statements = list(body.body)
        first = statements[0]
        assert isinstance(first, cst.SimpleStatementLine | cst.BaseCompoundStatement)
        lines = [*updated.leading_lines, *first.leading_lines]
        statements[0] = first.with_changes(leading_lines=lines)
        return cst.FlattenSentinel(statements)

    context.edit(statement, flatten)
    return "drop the SDPA kernel forcing"


def fix_math_flag(site: Site, context: FixContext) -> str:
    """TP053: delete cuBLAS/cuFFT/linalg/SDPA switches."""
    context.remove_line(_line(site, context))
    return "drop a CUDA library switch"
