"""`agent scan` and `agent rules` run in-process: formats, output file, --fail-on, settings."""

import json
import shutil
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus

EXAMPLE = Path(__file__).resolve().parents[2] / "evals" / "suite" / "amp_classifier"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE / "train.py", tmp_path / "train.py")
    return tmp_path


def test_scan_prints_the_table_and_succeeds(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(repo)], env={}) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert "train.py" in out
    assert "TP002" in out
    assert "12 findings in 1 file" in out


def test_scan_json_for_a_target(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(repo), "--target", "tpu", "--json"], env={}) == ExitStatus.SUCCESS
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["target"] == "tpu"
    assert data["summary"]["findings"] == 18


def test_scan_writes_sarif_to_a_file(repo: Path, tmp_path: Path) -> None:
    output = tmp_path / "out" / "scan.sarif"
    output.parent.mkdir()
    code = main(["scan", str(repo), "--format", "sarif", "--output", str(output)], env={})
    assert code == ExitStatus.SUCCESS
    assert json.loads(output.read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_scan_writes_a_plain_table_to_a_file(repo: Path, tmp_path: Path) -> None:
    output = tmp_path / "report.txt"
    assert main(["scan", str(repo), "--output", str(output)], env={}) == ExitStatus.SUCCESS
    text = output.read_text(encoding="utf-8")
    assert "\x1b[" not in text
    assert "torch.cuda.synchronize()" in text


@pytest.mark.parametrize(
    ("level", "status"),
    [
        ("any", ExitStatus.FINDINGS),
        ("low", ExitStatus.SUCCESS),  # every finding of the example has a codemod
        ("none", ExitStatus.SUCCESS),
    ],
)
def test_fail_on_levels(repo: Path, level: str, status: ExitStatus) -> None:
    assert main(["scan", str(repo), "--fail-on", level], env={}) == status


def test_fail_on_counts_findings_without_a_codemod(repo: Path) -> None:
    (repo / "k.py").write_text("import triton\n", encoding="utf-8")
    assert main(["scan", str(repo), "--fail-on", "medium"], env={}) == ExitStatus.FINDINGS
    assert main(["scan", str(repo), "--fail-on", "high"], env={}) == ExitStatus.SUCCESS


def test_fail_on_and_target_come_from_the_repo_settings(repo: Path) -> None:
    (repo / "torchport.toml").write_text(
        'target = "tpu"\n[scan]\nfail_on = "any"\nignore = ["train.py"]\n', encoding="utf-8"
    )
    assert main(["scan", str(repo)], env={}) == ExitStatus.SUCCESS  # train.py is ignored
    (repo / "other.py").write_text("import torch\nx = y.double()\n", encoding="utf-8")
    assert main(["scan", str(repo)], env={}) == ExitStatus.FINDINGS  # float64 matters on tpu
    assert main(["scan", str(repo), "--fail-on", "none"], env={}) == ExitStatus.SUCCESS


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--format", "xml"], "unknown report format 'xml'"),
        (["--fail-on", "sometimes"], "scan.fail_on"),
        (["--target", "gpu"], "'tpu'"),
    ],
)
def test_bad_options_are_bad_input(
    repo: Path, arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", str(repo), *arguments], env={}) == ExitStatus.BAD_INPUT
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_scan_of_a_missing_path_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "/nonexistent/repo"], env={}) == ExitStatus.BAD_INPUT
    assert "does not exist" in capsys.readouterr().err


def test_rules_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"], env={}) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert "TP001" in out
    assert "TP172" in out
    assert "68 rules" in out


def test_rules_explains_one_with_its_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "tp030"], env={}) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert "TP030 cuda-autocast" in out
    assert "torch.cuda.amp.autocast()" in out
    assert "torch.amp.autocast(device_type=DEVICE.type" in out


def test_rules_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--json"], env={}) == ExitStatus.SUCCESS
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == 68
    assert main(["rules", "TP100", "--json"], env={}) == ExitStatus.SUCCESS
    assert json.loads(capsys.readouterr().out)["category"] == "distributed"


def test_unknown_rule_suggests_close_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "TP0300"], env={}) == ExitStatus.BAD_INPUT
    assert "did you mean TP030" in capsys.readouterr().err
