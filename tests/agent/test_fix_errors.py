"""`agent fix` refuses bad input with one line that says what to do (in-process, real git)."""

from pathlib import Path

import git
import pytest

from agent.cli import main
from agent.exit_status import ExitStatus

ENV = {"TORCHPORT_SANDBOX__TYPE": "local"}


def make_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    repo = git.Repo.init(root)
    for name, text in files.items():
        (root / name).write_text(text)
    repo.index.add(list(files))
    repo.index.commit("init")
    return root


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("agent: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "train.py").write_text("import torch\n")
    code = main(["fix", str(tmp_path), "--target", "tpu", "--run", "python train.py"], env=ENV)
    assert code == ExitStatus.BAD_INPUT
    assert "is not inside a git repository" in one_line_error(capsys)


def test_syntax_error_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"train.py": "import torch\n\ndef f(:\n    pass\n"})
    code = main(["fix", str(repo), "--target", "tpu", "--run", "python train.py"], env=ENV)
    assert code == ExitStatus.BAD_INPUT
    line = one_line_error(capsys)
    assert "train.py:3" in line
    assert "fix the syntax error" in line


def test_no_run_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo", {"model.py": "import torch\n"})
    code = main(["fix", str(repo), "--target", "neuron"], env=ENV)
    assert code == ExitStatus.BAD_INPUT
    assert "--run" in one_line_error(capsys)


def test_dirty_tree_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"train.py": "x = 1\n"})
    (repo / "train.py").write_text("x = 2\n")
    code = main(["fix", str(repo), "--target", "tpu", "--run", "python train.py"], env=ENV)
    assert code == ExitStatus.BAD_INPUT
    assert "train.py" in one_line_error(capsys)
    assert (repo / "train.py").read_text() == "x = 2\n"
    assert not (tmp_path / ".torchport").exists()


def test_missing_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path / "repo", {"train.py": "x = 1\n"})
    assert main(["fix", str(repo), "--run", "python train.py"], env=ENV) == ExitStatus.BAD_INPUT
    assert "--target" in one_line_error(capsys)


def test_resume_of_unknown_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fix", "--resume", "nope", "--run-dir", str(tmp_path)], env=ENV)
    assert code == ExitStatus.BAD_INPUT
    assert "no run 'nope'" in one_line_error(capsys)


def test_dry_run_prints_diff_and_commit_plan_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "import torch\n\nx = torch.ones(2).cuda()\ntorch.cuda.synchronize()\n"
    repo = make_repo(tmp_path / "repo", {"train.py": source})
    head = git.Repo(repo).head.commit.hexsha
    assert main(["fix", str(repo), "--target", "tpu", "--dry-run"], env=ENV) == ExitStatus.SUCCESS
    out = capsys.readouterr().out
    assert "torchport/tpu" in out
    assert "-x = torch.ones(2).cuda()" in out
    assert (repo / "train.py").read_text() == source
    assert git.Repo(repo).head.commit.hexsha == head
    assert [b.name for b in git.Repo(repo).branches] == ["master"]
    assert not (tmp_path / ".torchport").exists()
