"""The published pre-commit hooks: well-formed, and their command lines do what they say."""

import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.cli import main
from agent.exit_status import ExitStatus

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "evals" / "suite" / "amp_classifier" / "train.py"
REQUIRED = {"id", "name", "entry", "language"}


def hooks() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return {hook["id"]: hook for hook in data}


def test_hooks_have_the_fields_pre_commit_requires() -> None:
    for hook in hooks().values():
        assert set(hook) >= REQUIRED
        assert hook["entry"].startswith("agent scan")
        assert hook["pass_filenames"] is False


@pytest.mark.parametrize(
    ("hook", "kernel", "status"),
    [
        ("torchport-scan", False, ExitStatus.SUCCESS),  # everything has a codemod
        ("torchport-scan", True, ExitStatus.FINDINGS),  # a Triton kernel needs a person
        ("torchport-scan-any", False, ExitStatus.FINDINGS),
    ],
)
def test_hook_command_lines(
    hook: str,
    kernel: bool,
    status: ExitStatus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shutil.copy(EXAMPLE, tmp_path / "train.py")
    if kernel:
        (tmp_path / "k.py").write_text("import triton\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    spec = hooks()[hook]
    words = shlex.split(spec["entry"])[1:] + spec["args"]
    assert main(words, env={}) == status
    capsys.readouterr()
