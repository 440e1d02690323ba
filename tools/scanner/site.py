"""A detected site: the rule, the node, and which targets a codemod can fix it for."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from agent.settings import Target
from tools.rules import get_rule
from tools.scanner.facts import ModuleFacts


@dataclass(frozen=True)
class Site:
    """One occurrence of a rule in a module.

    `fixable` are the targets for which the rule's codemod handles this very site; `targets`
    those it matters for (narrower than the rule's when, say, a GradScaler is already written
    device-agnostically and only matters on bf16 targets); `data` carries what the detector
    learned for the codemod (the calls of a GradScaler, the parts of a device string).
    """

    code: str
    node: cst.CSTNode
    fixable: frozenset[Target]
    targets: frozenset[Target]
    message: str | None = None
    data: Any = None


def site(
    code: str,
    node: cst.CSTNode,
    *,
    fixable: bool | frozenset[Target] = True,
    targets: frozenset[Target] | None = None,
    message: str | None = None,
    data: Any = None,
) -> Site:
    """A Site for `code`; `fixable=True` means wherever the rule has a codemod."""
    rule = get_rule(code)
    if fixable is True:
        fixable_for = rule.codemods
    elif fixable is False:
        fixable_for = frozenset()
    else:
        fixable_for = fixable & rule.codemods
    return Site(
        code=code,
        node=node,
        fixable=fixable_for,
        targets=rule.targets if targets is None else targets & rule.targets,
        message=message,
        data=data,
    )


Detector = Callable[[Any, ModuleFacts], Iterable[Site]]
"""A function called with every node of one type (its key in a DETECTORS table)."""
