"""The run's private copy of the repo and the result files that come back."""

import json
import os
import shutil
from pathlib import Path

import pytest

from agent.errors import BadInputError
from sandbox.workspace import Workspace, tree_digest


def test_copy_keeps_files_and_links_and_skips_vcs_and_special_files(repo: Path) -> None:
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / "__pycache__").mkdir()
    os.mkfifo(repo / "pipe")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    with Workspace(repo) as workspace:
        copy = workspace.work
        assert (copy / "data" / "values.txt").read_text() == "1 2 3\n"
        assert (copy / "link.txt").is_symlink()
        assert (copy / "link.txt").readlink() == Path("data/values.txt")
        assert os.access(copy / "run.sh", os.X_OK)
        for skipped in (".git", ".venv", "__pycache__", "pipe"):
            assert not (copy / skipped).exists()
        assert workspace.out.is_dir()
        root = workspace.root
    assert not root.exists()


def test_unreadable_file_is_a_bad_input_naming_it(repo: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    secret = repo / "secret.txt"
    secret.write_text("x")
    secret.chmod(0)
    with pytest.raises(BadInputError, match=r"secret\.txt"), Workspace(repo):
        pass


def test_results_move_to_the_artifacts_folder_and_json_is_parsed(
    repo: Path, tmp_path: Path
) -> None:
    artifacts = tmp_path / "artifacts"
    with Workspace(repo) as workspace:
        (workspace.out / "metrics.json").write_text(json.dumps({"schema": 1, "native_calls": 4}))
        (workspace.out / "probes.json").write_text(json.dumps({"losses": [1.0, 0.5]}))
        (workspace.out / "tensor.pt").write_bytes(b"\0" * 10)
        (workspace.out / "escape").symlink_to("/etc/passwd")
        results = workspace.collect(artifacts)
    assert results.artifacts_dir == artifacts
    assert results.runtime_metrics == {"schema": 1, "native_calls": 4}
    assert results.probes == {"losses": [1.0, 0.5]}
    assert sorted(path.name for path in artifacts.iterdir()) == [
        "metrics.json",
        "probes.json",
        "tensor.pt",
    ]
    assert not results.problems


def test_a_cut_short_json_file_is_reported_not_hidden(repo: Path, tmp_path: Path) -> None:
    with Workspace(repo) as workspace:
        (workspace.out / "metrics.json").write_text('{"schema": 1, "ops": {')
        results = workspace.collect(tmp_path / "artifacts")
    assert results.runtime_metrics is None
    assert results.artifacts_dir == tmp_path / "artifacts"
    assert "metrics.json is not valid JSON" in results.problems[0]


def test_nothing_written_means_no_artifacts_folder(repo: Path) -> None:
    with Workspace(repo) as workspace:
        results = workspace.collect(None)
    assert results.artifacts_dir is None
    assert results.runtime_metrics is None
    assert results.probes is None


def test_workspace_is_removed_even_when_the_program_locked_it(repo: Path) -> None:
    with Workspace(repo) as workspace:
        locked = workspace.work / "locked"
        locked.mkdir()
        (locked / "file").write_text("x")
        locked.chmod(0o500)
        root = workspace.root
    assert not root.exists()


def test_tree_digest_sees_contents_modes_links_and_new_files(repo: Path) -> None:
    first = tree_digest(repo)
    assert tree_digest(repo) == first
    seen = {first}

    def changed() -> bool:
        digest = tree_digest(repo)
        fresh = digest not in seen
        seen.add(digest)
        return fresh

    (repo / "train.py").write_text("print('other')\n")
    assert changed()
    (repo / "train.py").chmod(0o700)
    assert changed()
    (repo / "link.txt").unlink()
    (repo / "link.txt").symlink_to("train.py")
    assert changed()
    (repo / ".git" / "new").write_text("")
    assert changed()


def test_results_without_an_artifacts_folder_go_to_a_fresh_one(repo: Path) -> None:
    with Workspace(repo) as workspace:
        (workspace.out / "probes.json").write_text("{}")
        results = workspace.collect(None)
    assert results.artifacts_dir is not None
    try:
        assert results.artifacts_dir.name.startswith("torchport-artifacts-")
        assert results.probes == {}
    finally:
        shutil.rmtree(results.artifacts_dir)
