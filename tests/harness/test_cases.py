"""Which cases an eval runs and the verdict each should reach; the CLI's checks of its options."""

from pathlib import Path

import pytest

from agent.cli import main
from agent.errors import BadInputError
from agent.exit_status import ExitStatus
from agent.settings import Target
from evals.harness.cases import collect_cases, expectation_of
from evals.harness.command import TIMEOUT_FACTOR, RunConfig, fix_argv, fix_env
from evals.tasks import SUITE_DIR, load_task
from tests.harness.tiny_suite import task_toml, train_case, write_case


def test_suite_case_expectations_follow_the_task() -> None:
    digits = load_task(SUITE_DIR / "digits_cnn")
    assert expectation_of(digits, Target.TPU, llm=False).verdict == "parity"
    agnostic = expectation_of(digits, Target.AGNOSTIC, llm=True)
    assert agnostic.verdict == "manual"
    assert agnostic.why == digits.expected.reasons[Target.AGNOSTIC]


def test_a_task_that_needs_the_llm_expects_manual_without_one() -> None:
    encoder = load_task(SUITE_DIR / "encoder_benchmark")
    assert encoder.needs_llm
    assert expectation_of(encoder, Target.TPU, llm=True).verdict == "parity"
    without = expectation_of(encoder, Target.TPU, llm=False)
    assert (without.verdict, without.why) == (
        "manual",
        "needs an LLM (run with --no-llm or no model)",
    )


def test_a_missing_reference_module_makes_the_expectation_manual(tmp_path: Path) -> None:
    toml = task_toml("needs_module", "python train.py").replace(
        "[parity]",
        '[reference]\nrequires = ["torchport_no_such_module"]\nreason = "not here"\n\n[parity]',
    )
    folder = write_case(tmp_path, "needs_module", {"train.py": "print(1)\n"}, toml)
    expectation = expectation_of(load_task(folder), Target.TPU, llm=True)
    assert (expectation.verdict, expectation.why) == (
        "manual",
        "no reference without torchport_no_such_module",
    )


def test_collect_cases_by_glob(tmp_path: Path) -> None:
    for name in ("alpha", "beta", "alpine"):
        train_case(tmp_path, name)
    assert [case.name for case in collect_cases(tmp_path, None, "al*")] == ["alpha", "alpine"]
    assert [case.name for case in collect_cases(tmp_path, None, "beta, alpi*")] == [
        "alpine",
        "beta",
    ]
    with pytest.raises(BadInputError, match="no case matches 'gamma'"):
        collect_cases(tmp_path, None, "gamma")


def test_the_fix_command_carries_the_task(tmp_path: Path) -> None:
    spec = load_task(SUITE_DIR / "checkpoint_finetune")
    config = RunConfig(llm=True, model="m", base_url="http://x/v1", sandbox="local", env={"A": "1"})
    argv = fix_argv(tmp_path / "repo", Target.NEURON, spec, config, tmp_path / "runs")
    assert argv[3:7] == ["fix", str(tmp_path / "repo"), "--target", "neuron"]
    assert argv.count("--run") == len(spec.run) == 2
    assert "--no-branch" in argv
    assert "--no-llm" not in argv
    assert argv[-6:] == ["--model", "m", "--base-url", "http://x/v1", "--sandbox", "local"]
    env = fix_env(spec, config)
    assert env["A"] == "1"
    assert env["TORCHPORT_SANDBOX__TIMEOUT_S"] == str(spec.timeout_s)
    from agent.settings import load_settings

    settings = load_settings(None, env=env)
    assert settings.parity.print_patterns == spec.parity.print_patterns
    assert settings.parity.protected == spec.parity.protected
    assert settings.sandbox.timeout_s == spec.timeout_s
    assert config.limit_s(spec) == TIMEOUT_FACTOR * spec.timeout_s
    assert RunConfig(llm=False, timeout_s=5).limit_s(spec) == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--targets", "tpu,gpu"], "--targets: unknown target(s) gpu"),
        (["--targets", ","], "--targets names no target"),
        (["--cases", "no_such_case_*"], "no case matches 'no_such_case_*'"),
        (["--suite", "/no/such/suite"], "/no/such/suite: no such suite folder"),
        (["--compare", "/no/a", "/no/b"], "/no/a is not an eval run folder"),
    ],
)
def test_bad_options_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = main(["eval", "--run-dir", str(tmp_path / "run"), *args], env={})
    assert code == ExitStatus.BAD_INPUT
    assert message in capsys.readouterr().err.replace("\n", " ")
