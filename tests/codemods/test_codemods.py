"""Each codemod, per target: the expected rewrite, idempotence, a result that parses, and no
fixable finding of its rule left behind."""

import ast

import pytest

from agent.errors import BadInputError
from agent.settings import Target
from tests.codemods.cases import CASES, CodemodCase
from tools.codemods import migrate_source
from tools.rules import all_rules
from tools.scanner import scan_source

RUNS = [
    pytest.param(case, target, id=f"{case.rule}-{target.value}-{index}")
    for index, case in enumerate(CASES)
    for target in sorted(case.targets)
]


def test_every_codemod_has_a_case_for_every_target_it_supports() -> None:
    covered = {(case.rule, target) for case in CASES for target in case.targets}
    declared = {(rule.code, target) for rule in all_rules() for target in rule.codemods}
    assert declared <= covered
    assert covered <= declared


@pytest.mark.parametrize(("case", "target"), RUNS)
def test_rewrite_matches_the_expected_source(case: CodemodCase, target: Target) -> None:
    result = migrate_source(case.before, target, rules={case.rule})
    assert result.source == case.after
    assert {fix.rule for fix in result.applied} <= {case.rule, "TP032", "TP033"}
    assert result.applied


@pytest.mark.parametrize(("case", "target"), RUNS)
def test_rewrite_is_idempotent_parses_and_leaves_nothing_fixable(
    case: CodemodCase, target: Target
) -> None:
    once = migrate_source(case.before, target).source
    ast.parse(once)
    twice = migrate_source(once, target)
    assert twice.source == once
    assert twice.applied == []
    assert [finding for finding in scan_source(once, target=target) if finding.fixable] == []


@pytest.mark.parametrize(("case", "target"), RUNS)
def test_other_rules_leave_this_rules_sites_alone(case: CodemodCase, target: Target) -> None:
    partners = {case.rule, "TP032", "TP033"} if case.rule in ("TP032", "TP033") else {case.rule}
    others = {rule.code for rule in all_rules()} - partners
    before = _sites(case.before, target, partners)
    migrated = migrate_source(case.before, target, rules=others).source
    assert before
    assert _sites(migrated, target, partners) == before


def _sites(source: str, target: Target, codes: set[str]) -> list[str]:
    return sorted(f.rule for f in scan_source(source, target=target) if f.rule in codes)


def test_applied_fixes_name_rule_line_and_change() -> None:
    result = migrate_source("import torch\n\nx = y.cuda()\ntorch.cuda.synchronize()\n", Target.TPU)
    assert [(fix.rule, fix.line) for fix in result.applied] == [("TP002", 3), ("TP060", 4)]
    assert all(fix.description for fix in result.applied)


def test_unknown_rule_codes_are_refused() -> None:
    with pytest.raises(BadInputError, match="TP999"):
        migrate_source("x = 1\n", Target.TPU, rules={"TP999"})


@pytest.mark.parametrize(
    "source",
    [
        'import torch\nprimary_device = f"cuda:{torch.cuda.current_device()}"\n',
        "import torch\ny = x.cuda(torch.cuda.current_device())\n",
        "def f(batch):\n    return batch.cuda().pin_memory()\n",
        "import torch\ntorch.cuda.synchronize(torch.cuda.current_device())\n",
        "import torch\nwith torch.cuda.device(torch.cuda.current_device()):\n    pass\n",
        "import torch\ntorch.backends.cudnn.deterministic = x.cuda().is_floating_point()\n",
        "import torch\nused = torch.cuda.memory_allocated(torch.cuda.current_device())\n",
    ],
)
@pytest.mark.parametrize("target", list(Target))
def test_nested_sites_are_rewritten_in_one_run(source: str, target: Target) -> None:
    once = migrate_source(source, target)
    assert migrate_source(once.source, target).source == once.source
    assert [finding for finding in scan_source(once.source, target=target) if finding.fixable] == []
