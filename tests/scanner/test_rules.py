"""The rule catalogue: codes, categories, texts, codemod declarations and look-ups."""

import pytest

from agent.errors import BadInputError
from agent.settings import Target
from tools.codemods.fixers import FIXERS
from tools.rules import Category, Effort, all_rules, families, get_rule, with_partners


def test_at_least_forty_rules_cover_every_category() -> None:
    rules = all_rules()
    assert len(rules) >= 40
    assert {rule.category for rule in rules} == set(Category)


def test_codes_are_unique_and_well_formed() -> None:
    codes = [rule.code for rule in all_rules()]
    assert len(codes) == len(set(codes))
    assert all(len(code) == 5 and code.startswith("TP") and code[2:].isdigit() for code in codes)
    assert codes == sorted(codes)


def test_every_rule_explains_itself_with_an_example() -> None:
    for rule in all_rules():
        assert rule.message, rule.code
        assert "\n" not in rule.message, rule.code
        assert len(rule.explanation) > 80, rule.code
        assert rule.before.strip(), rule.code
        assert rule.targets, rule.code


def test_effort_none_means_a_codemod_for_every_target_that_matters() -> None:
    for rule in all_rules():
        if rule.effort is Effort.NONE:
            assert rule.codemods == rule.targets, rule.code


def test_declared_codemods_have_a_fixer_and_fixers_have_a_declaration() -> None:
    declared = {rule.code for rule in all_rules() if rule.codemods}
    assert declared == set(FIXERS)


def test_get_rule_is_case_insensitive_and_suggests_close_codes() -> None:
    assert get_rule("tp002").code == "TP002"
    with pytest.raises(BadInputError) as raised:
        get_rule("TP0022")
    assert "TP002" in raised.value.one_line()
    with pytest.raises(BadInputError, match="unknown rule code"):
        get_rule("nonsense")


def test_families_group_every_rule_once() -> None:
    grouped = families()
    assert sorted(code for rules in grouped.values() for code in (r.code for r in rules)) == [
        rule.code for rule in all_rules()
    ]
    assert set(grouped) == {category.value for category in Category}


def test_grad_scaler_rules_are_fixed_together() -> None:
    assert with_partners(frozenset({"TP032"})) == {"TP032", "TP033"}
    assert with_partners(frozenset({"TP033"})) == {"TP032", "TP033"}


def test_rule_as_dict_lists_codemods_per_target() -> None:
    data = get_rule("TP051").to_dict()
    assert data["codemods"] == {"tpu": True, "neuron": True, "agnostic": False}
    assert data["targets"] == sorted(target.value for target in (Target.TPU, Target.NEURON))
