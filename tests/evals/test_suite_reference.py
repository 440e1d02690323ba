"""Each case's ORIGINAL program runs unmodified on the reference runtime, within its timeout, and
prints what its print_patterns expect."""

import importlib.util
import re
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet

from evals.tasks import TaskSpec, load_suite
from tests.evals.reference_run import run_case

KNOWN_RUNTIME_GAPS: dict[str, str] = {}
"""Cases the reference runtime cannot run yet, for reasons in the runtime (strict: they must fail)."""


def missing_requirements(spec: TaskSpec) -> list[str]:
    return [
        module for module in spec.reference.requires if importlib.util.find_spec(module) is None
    ]


def case_params() -> list[ParameterSet]:
    params: list[ParameterSet] = []
    for spec in load_suite():
        marks = [pytest.mark.slow]
        if spec.name in KNOWN_RUNTIME_GAPS:
            marks.append(pytest.mark.xfail(reason=KNOWN_RUNTIME_GAPS[spec.name], strict=True))
        params.append(pytest.param(spec, id=spec.name, marks=marks))
    return params


@pytest.mark.parametrize("spec", case_params())
def test_the_original_runs_on_the_reference_runtime(spec: TaskSpec, tmp_path: Path) -> None:
    missing = missing_requirements(spec)
    if missing:
        pytest.skip(f"{spec.name} needs {missing}: {spec.reference.reason}")
    runs = run_case(spec, tmp_path)
    failed = [run for run in runs if run.exit_code != 0]
    assert not failed, (
        f"{failed[0].command} exited {failed[0].exit_code}:\n{failed[0].output[-3000:]}"
    )
    assert len(runs) == len(spec.run)
    output = "\n".join(run.output for run in runs)
    for pattern in spec.parity.print_patterns:
        values = [match.group(1) for match in re.finditer(pattern, output, re.MULTILINE)]
        assert values, f"print pattern {pattern!r} matched nothing in:\n{output[-3000:]}"
    cuda_calls = {run.command: run.metrics()["native_calls"] for run in runs}
    assert any(cuda_calls.values()), f"no command did CUDA work on the reference: {cuda_calls}"


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec", [s for s in load_suite() if s.reference.requires], ids=lambda s: s.name
)
def test_without_its_requirements_the_reference_is_reported_unavailable(
    spec: TaskSpec, tmp_path: Path
) -> None:
    if not missing_requirements(spec):
        pytest.skip(f"{spec.reference.requires} installed: the case runs in full above")
    runs = run_case(spec, tmp_path)
    assert runs[0].exit_code != 0
    reference = runs[0].metrics()["reference"]
    unavailable = " ".join(entry["what"] for entry in reference["unavailable"])
    assert any(module in unavailable for module in spec.reference.requires), reference


@pytest.mark.slow
def test_an_extension_fallback_runs_and_is_recorded(tmp_path: Path) -> None:
    (spec,) = load_suite(cases="fused_act_extension")
    runs = run_case(spec, tmp_path)
    assert [run.exit_code for run in runs] == [0] * len(spec.run)
    assert "Falling back to slow reference implementation" in runs[0].output
    whats = [entry["what"] for entry in runs[0].metrics()["reference"]["unavailable"]]
    assert any("custom CUDA extension" in what for what in whats), whats
