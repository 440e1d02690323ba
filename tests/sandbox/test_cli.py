"""`agent run` and `agent sandbox doctor` in-process."""

import json
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus


def keep(repo: Path) -> list[str]:
    """`--artifacts` into the test's own folder (not a fresh temporary one)."""
    return ["--artifacts", str(repo.parent / "artifacts")]


def test_run_shows_exit_code_and_output_tail(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--sandbox", "local", *keep(repo), str(repo), "--", "python", "train.py"]
    assert main(argv, env={}) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert out.startswith("ok: exit 0 in ")
    assert "training" in out
    assert f"artifacts: {repo.parent / 'artifacts'}" in out


def test_run_json_is_the_run_result(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "--sandbox", "local", "--json", "--timeout", "1", *keep(repo), str(repo)]
    argv += ["--", "sleep", "9"]
    assert main(argv, env={}) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["timed_out"] is True
    assert data["exit_code"] == 137
    assert data["backend"].startswith("local")


def test_failing_command_exits_1(repo: Path) -> None:
    argv = ["run", "--sandbox", "local", *keep(repo), str(repo), "--", "python", "-c", "exit(3)"]
    assert main(argv, env={}) == 1


def test_settings_from_the_environment_apply(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"TORCHPORT_SANDBOX__TYPE": "local", "TORCHPORT_SANDBOX__TIMEOUT_S": "1"}
    assert main(["run", "--json", *keep(repo), str(repo), "--", "sleep", "9"], env=env) == 1
    assert json.loads(capsys.readouterr().out)["timed_out"] is True


def test_options_after_path_are_refused_not_run(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", *keep(repo), str(repo), "--sandbox", "local", "--", "python", "train.py"]
    status = main(argv, env={})
    if status == ExitStatus.SUCCESS:  # the CLI parses options after PATH itself
        assert "training" in capsys.readouterr().out
    else:
        assert status == ExitStatus.BAD_INPUT
        assert "put the options before PATH" in capsys.readouterr().err


def test_run_on_a_missing_path_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "/nonexistent", "--", "true"], env={}) == ExitStatus.BAD_INPUT
    assert "/nonexistent does not exist" in capsys.readouterr().err


@pytest.mark.docker
def test_run_in_docker(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "--sandbox", "docker", *keep(repo), str(repo), "--", "python", "train.py"]
    assert main(argv, env={}) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert "(docker sandbox, target cpu)" in out
    assert "training" in out


@pytest.mark.slow
def test_doctor_local_verifies_every_property(capsys: pytest.CaptureFixture[str]) -> None:
    from sandbox.local_sandbox import bwrap_problem

    status = main(["sandbox", "doctor", "--sandbox", "local", "--json"], env={})
    report = json.loads(capsys.readouterr().out)
    names = [check["name"] for check in report["checks"]["local"]]
    assert names == [
        "runs",
        "no network",
        "no host environment",
        "files",
        "memory limit",
        "pids limit",
        "timeout",
        "output cap",
    ]
    if bwrap_problem() is None:
        assert status == ExitStatus.SUCCESS, report
        assert all(check["ok"] for check in report["checks"]["local"])
    else:
        assert status == ExitStatus.INFRA_FAILURE


def test_doctor_with_unshare_reports_the_missing_file_isolation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {"TORCHPORT_SANDBOX__ISOLATION": "unshare"}
    status = main(["sandbox", "doctor", "--sandbox", "local"], env=env)
    out = capsys.readouterr().out
    assert status == ExitStatus.INFRA_FAILURE
    assert "NO  files: wrote" in out
    assert "ok  no network" in out


@pytest.mark.docker
@pytest.mark.slow
def test_doctor_docker(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["sandbox", "doctor", "--sandbox", "docker", "--json"], env={})
    report = json.loads(capsys.readouterr().out)
    facts = {fact["name"]: fact for fact in report["facts"]}
    assert facts["docker engine"]["ok"]
    failed = [check for check in report["checks"]["docker"] if not check["ok"]]
    assert not failed
    image_current = all(fact["ok"] for fact in report["facts"])
    assert status == (ExitStatus.SUCCESS if image_current else ExitStatus.INFRA_FAILURE)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sandbox", "isolation"),
    [
        pytest.param("docker", "auto", marks=pytest.mark.docker, id="docker"),
        pytest.param("local", "bwrap", id="bwrap"),
        pytest.param("local", "unshare", id="unshare"),
    ],
)
@pytest.mark.parametrize("target", ["tpu", "neuron"])
def test_run_on_the_emulated_device(
    sandbox: str, isolation: str, target: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = f"import torch; print(torch.ones(2, device='{target}').sum())"
    argv = ["run", "--target", target, "--sandbox", sandbox, "--json", *keep(repo), str(repo)]
    env = {"TORCHPORT_SANDBOX__ISOLATION": isolation}
    status = main([*argv, "--", "python", "-c", program], env=env)
    result = json.loads(capsys.readouterr().out)
    assert status == ExitStatus.SUCCESS, result["stderr"]
    assert result["stdout"] == f"tensor(2., device='{target}:0')\n"
    assert result["runtime_metrics"]["target"] == target
    assert result["runtime_metrics"]["native_calls"] > 0
