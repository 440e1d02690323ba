"""The rule catalogue: every rule by code, looked up with suggestions for typos."""

import difflib
import functools

from agent.errors import BadInputError
from tools.rules import (
    amp,
    backend_flags,
    compile,
    data_loading,
    device,
    distributed,
    dtype,
    kernels,
    memory,
    rng,
    serialization,
    sync,
    third_party,
)
from tools.rules.model import Rule

_FAMILIES = (
    device,
    rng,
    amp,
    backend_flags,
    sync,
    memory,
    data_loading,
    distributed,
    serialization,
    compile,
    kernels,
    third_party,
    dtype,
)


@functools.cache
def _index() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for family in _FAMILIES:
        for rule in family.RULES:
            if rule.code in rules:
                raise ValueError(f"rule code {rule.code} is defined twice")
            rules[rule.code] = rule
    for rule in rules.values():
        unknown = rule.fix_together - rules.keys()
        if unknown:
            raise ValueError(f"{rule.code}: fix_together names unknown rules {sorted(unknown)}")
    return dict(sorted(rules.items()))


def all_rules() -> list[Rule]:
    """Every rule, ordered by code."""
    return list(_index().values())


def get_rule(code: str) -> Rule:
    """The rule with `code` (case-insensitive); BadInputError naming close codes otherwise."""
    index = _index()
    wanted = code.strip().upper()
    if wanted in index:
        return index[wanted]
    close = difflib.get_close_matches(wanted, list(index), n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(close)}?" if close else "`agent rules` lists every code"
    raise BadInputError(f"unknown rule code {code!r}", hint=hint)


def rule_codes() -> frozenset[str]:
    """The set of known codes."""
    return frozenset(_index())


def families() -> dict[str, list[Rule]]:
    """Rules grouped by family (one commit per family when the agent applies codemods)."""
    grouped: dict[str, list[Rule]] = {}
    for rule in all_rules():
        grouped.setdefault(rule.family, []).append(rule)
    return grouped


def with_partners(codes: frozenset[str]) -> frozenset[str]:
    """`codes` plus the rules each must be fixed together with (GradScaler and its calls)."""
    index = _index()
    expanded = set(codes)
    for code in codes:
        expanded |= index[code].fix_together
    return frozenset(expanded)
