"""The CUDA lock-in rule catalogue: one module per category, codes `TP` + 3 digits."""

from tools.rules.catalogue import all_rules, families, get_rule, rule_codes, with_partners
from tools.rules.model import ACCELERATORS, ALL_TARGETS, Category, Effort, Rule, Severity

__all__ = [
    "ACCELERATORS",
    "ALL_TARGETS",
    "Category",
    "Effort",
    "Rule",
    "Severity",
    "all_rules",
    "families",
    "get_rule",
    "rule_codes",
    "with_partners",
]
