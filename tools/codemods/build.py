"""Node builders for the codemods: argument lists, parentheses, guarded statements."""

from collections.abc import Sequence

import libcst as cst

from tools.scanner.patterns import needs_parentheses

# Parents under which any expression can stand without parentheses.
_OPEN_CONTEXTS = (
    cst.Arg,
    cst.Assign,
    cst.AnnAssign,
    cst.Return,
    cst.Expr,
    cst.FormattedStringExpression,
    cst.Element,
    cst.DictElement,
    cst.WithItem,
    cst.Param,
    cst.Index,
)


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` wrapped in parentheses (unless it already is)."""
    if getattr(node, "lpar", ()):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def fit(new: cst.BaseExpression, parent: cst.CSTNode | None) -> cst.BaseExpression:
    """`new` parenthesised when it replaces an expression whose parent needs an atom."""
    if parent is None or isinstance(parent, _OPEN_CONTEXTS) or not needs_parentheses(new):
        return new
    return parenthesized(new)


def operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` ready to be the object of `.attr` or `[...]`."""
    return parenthesized(node) if needs_parentheses(node) else node


def arguments(args: Sequence[cst.Arg], like: Sequence[cst.Arg] = ()) -> list[cst.Arg]:
    """`args` with commas between them; a trailing comma only if `like` ended with one."""
    trailing = bool(like) and isinstance(like[-1].comma, cst.Comma)
    fixed = []
    for index, arg in enumerate(args):
        last = index == len(args) - 1
        if last:
            comma = like[-1].comma if trailing else cst.MaybeSentinel.DEFAULT
        elif isinstance(arg.comma, cst.Comma):
            comma = arg.comma
        else:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        fixed.append(arg.with_changes(comma=comma))
    return fixed


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`."""
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def without_keywords(call: cst.Call, *names: str) -> cst.Call:
    """The call without its `name=` arguments."""
    kept = [arg for arg in call.args if not (arg.keyword and arg.keyword.value in names)]
    return call.with_changes(args=arguments(kept, call.args))


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """The call with `name=value`, replacing an existing `name=` in place."""
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == name:
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    return call.with_changes(args=arguments([*args, keyword_arg(name, value)], call.args))


def replace_arg_value(call: cst.Call, old: cst.Arg, value: cst.BaseExpression) -> cst.Call:
    """The call with the value of argument `old` (matched by position in `call.args`) replaced."""
    args = [arg.with_changes(value=value) if arg is old else arg for arg in call.args]
    return call.with_changes(args=args)


def code(node: cst.CSTNode) -> str:
    """Source text of a node."""
    return cst.Module([]).code_for_node(node)


def statement_line(
    statement: cst.BaseSmallStatement, like: cst.SimpleStatementLine | None = None
) -> cst.SimpleStatementLine:
    """A line holding `statement`, taking over the leading comments/blank lines of `like`."""
    line = cst.SimpleStatementLine(body=[statement])
    return line.with_changes(leading_lines=like.leading_lines) if like is not None else line


_REMOVED = "__torchport_removed_line__"


def removed(line: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    """A marker for a deleted line, which the sweep of the enclosing block drops (handing its
    blank lines and unrelated comments to the next statement). libcst itself drops empty
    lines before the block sees them, so the marker is a line holding one reserved name."""
    marker = cst.Expr(value=cst.Name(_REMOVED))
    return cst.SimpleStatementLine(body=[marker], leading_lines=line.leading_lines)


def is_removed(statement: cst.CSTNode) -> bool:
    """Whether a statement is a deletion marker."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Name)
        and (small.value.value == _REMOVED)
    )
