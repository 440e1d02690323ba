"""The shipped suite: every case loads, the cases cover every required pattern, tags are honest."""

import re

import pytest

from agent.settings import Target
from evals.tasks import REQUIRED_TAGS, SUITE_DIR, TAGS, TaskSpec, load_suite

SOURCE_SUFFIXES = (".py", ".cu", ".cpp", ".sh")
CASES = load_suite()
README = SUITE_DIR / "README.md"


def case_text(spec: TaskSpec) -> str:
    """Every source file of the case and its commands: what a tag's evidence is searched in."""
    files = sorted(p for p in spec.root.rglob("*") if p.suffix in SOURCE_SUFFIXES)
    return "\n".join([*(p.read_text(encoding="utf-8") for p in files), *spec.setup, *spec.run])


def test_the_suite_has_at_least_fourteen_cases() -> None:
    assert len(CASES) >= 14
    assert len({spec.name for spec in CASES}) == len(CASES)


def test_every_required_pattern_is_covered() -> None:
    covered = {tag for spec in CASES for tag in spec.tags}
    assert not set(REQUIRED_TAGS) - covered, (
        f"no case covers {sorted(set(REQUIRED_TAGS) - covered)}"
    )
    assert set(REQUIRED_TAGS) <= TAGS.keys()


@pytest.mark.parametrize("spec", CASES, ids=lambda spec: spec.name)
def test_tags_are_backed_by_the_code(spec: TaskSpec) -> None:
    text = case_text(spec)
    missing = {tag: TAGS[tag].missing_evidence(text) for tag in spec.tags}
    assert not {tag: regexes for tag, regexes in missing.items() if regexes}, missing


@pytest.mark.parametrize("spec", CASES, ids=lambda spec: spec.name)
def test_cases_are_cuda_first_and_declare_probes(spec: TaskSpec) -> None:
    text = case_text(spec)
    assert re.search(r"cuda", text), "a suite case must start from CUDA code"
    assert spec.parity.print_patterns, "give print_patterns: the numbers parity compares"
    assert "torch.accelerator" not in text, "cases are the CUDA originals, not migrations"


@pytest.mark.parametrize("spec", CASES, ids=lambda spec: spec.name)
def test_the_readme_row_matches_the_task(spec: TaskSpec) -> None:
    rows = [
        line
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.startswith(f"| `{spec.name}` |")
    ]
    assert len(rows) == 1, f"{README} needs one table row for {spec.name}"
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    verdicts = "/".join(spec.expected_verdict(target) for target in Target)
    assert cells[2] == spec.difficulty
    assert cells[3] == ("yes" if spec.needs_llm else "no")
    assert cells[4] == verdicts
    assert set(cells[1].replace("`", "").split(", ")) == set(spec.tags)


def test_the_suite_covers_every_difficulty_and_both_verdicts() -> None:
    assert {spec.difficulty for spec in CASES} == {"easy", "medium", "hard"}
    verdicts = {spec.expected_verdict(target) for spec in CASES for target in Target}
    assert verdicts == {"parity", "manual"}
    assert any(spec.needs_llm for spec in CASES)
    assert any(not spec.needs_llm for spec in CASES)


def test_every_case_folder_has_a_task_file() -> None:
    folders = {
        p.name for p in SUITE_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    }
    assert folders == {spec.name for spec in CASES}


def test_reference_requirements_are_modules_the_case_imports() -> None:
    for spec in CASES:
        text = case_text(spec)
        for module in spec.reference.requires:
            assert re.search(rf"^\s*(import|from) {re.escape(module)}\b", text, re.M), (
                spec.name,
                module,
            )
