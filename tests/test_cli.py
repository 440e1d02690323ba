"""The CLI in-process: help, exit codes of the error paths, and one-line errors."""

import json
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus

SUBCOMMANDS = ("scan", "fix", "run", "parity", "eval", "sandbox", "rules", "version")


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"], env={}) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert name in out


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_subcommand_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([name, "--help"], env={}) == ExitStatus.SUCCESS
    assert "Usage: agent " + name in capsys.readouterr().out


def test_fix_on_missing_path_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", "/nonexistent", "--target", "tpu"], env={}) == ExitStatus.BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "/nonexistent does not exist" in err
    assert "Traceback" not in err


def test_fix_with_unknown_target_names_the_valid_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", str(tmp_path), "--target", "gpu"], env={}) == ExitStatus.BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for target in ("tpu", "neuron", "agnostic"):
        assert f"'{target}'" in err


def test_unknown_command_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"], env={}) == ExitStatus.BAD_INPUT
    assert "No such command" in capsys.readouterr().err


def test_version_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["version", "--json"], env={}) == ExitStatus.SUCCESS
    data = json.loads(capsys.readouterr().out)
    assert data["torchport"]
    assert data["torch"].startswith("2.")


def test_exit_statuses_are_distinct() -> None:
    values = [status.value for status in ExitStatus]
    assert len(values) == len(set(values))
    assert ExitStatus.SUCCESS == 0


def test_an_unbuilt_feature_exits_with_its_own_status(capsys: pytest.CaptureFixture[str]) -> None:
    """NotAvailableError is how a command says a feature has not landed: exit 7, one line."""
    from agent.cli import app
    from agent.errors import NotAvailableError

    def preview() -> None:
        raise NotAvailableError("`agent preview` is not available yet", hint="see the README")

    app.command("preview-test", hidden=True)(preview)
    try:
        assert main(["preview-test"], env={}) == ExitStatus.NOT_AVAILABLE
    finally:
        app.registered_commands.pop()
    assert capsys.readouterr().err.strip() == (
        "agent: error: `agent preview` is not available yet (see the README)"
    )
