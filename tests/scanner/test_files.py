"""Which files a scan reads, and how files that cannot be scanned are reported."""

import subprocess
from pathlib import Path

from agent.settings import Target
from tools.scanner import scan_path
from tools.scanner.files import source_files

CUDA_LINE = "import torch\nx = torch.zeros(1).cuda()\n"


def write(root: Path, relative: str, text: str = CUDA_LINE) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_python_and_cuda_sources_are_found(tmp_path: Path) -> None:
    write(tmp_path, "train.py")
    write(tmp_path, "pkg/model.py")
    write(tmp_path, "csrc/kernel.cu", "__global__ void k() {}\n")
    write(tmp_path, "csrc/kernel.cuh", "#pragma once\n")
    write(tmp_path, "README.md", "x.cuda()\n")
    found = [path.as_posix() for path in source_files(tmp_path)]
    assert found == ["csrc/kernel.cu", "csrc/kernel.cuh", "pkg/model.py", "train.py"]


def test_virtualenvs_site_packages_and_caches_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, "train.py")
    write(tmp_path, "env/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "env/lib/python3.11/torch_stuff.py")
    write(tmp_path, "conda/conda-meta/history", "")
    write(tmp_path, "conda/lib/x.py")
    write(tmp_path, "vendor/site-packages/lib.py")
    write(tmp_path, ".venv/lib.py")
    write(tmp_path, "__pycache__/x.py")
    write(tmp_path, ".git/hooks/pre-commit.py")
    assert [path.as_posix() for path in source_files(tmp_path)] == ["train.py"]


def test_gitignore_files_and_ignore_patterns_are_honoured(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".gitignore", "build/\n*_generated.py\n!keep_generated.py\n")
    write(tmp_path, "src/.gitignore", "scratch.py\n")
    write(tmp_path, ".git/info/exclude", "local.py\n")
    for name in (
        "train.py",
        "build/copy.py",
        "src/a_generated.py",
        "src/keep_generated.py",
        "src/scratch.py",
        "other/scratch.py",
        "local.py",
        "third_party/vendored.py",
    ):
        write(tmp_path, name)
    found = [path.as_posix() for path in source_files(tmp_path, ignore=["third_party/"])]
    assert found == ["other/scratch.py", "src/keep_generated.py", "train.py"]


def test_gitignore_above_the_scanned_folder_applies(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".gitignore", "generated/\n")
    write(tmp_path, "project/train.py")
    write(tmp_path, "project/generated/out.py")
    assert [path.as_posix() for path in source_files(tmp_path / "project")] == ["train.py"]


def test_a_folder_inside_an_ignored_folder_is_scanned_when_asked_for(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".gitignore", ".cache/\n*.tmp.py\n")
    write(tmp_path, ".cache/copy/train.py")
    write(tmp_path, ".cache/copy/out.tmp.py")
    found = [path.as_posix() for path in source_files(tmp_path / ".cache" / "copy")]
    assert found == ["train.py"]  # the rule that covers the root is dropped, the others apply


def test_a_nested_work_tree_takes_no_rules_from_above(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(tmp_path, ".gitignore", "*.py\n")
    subprocess.run(["git", "init", "-q", str(tmp_path / "inner")], check=True)
    write(tmp_path, "inner/train.py")
    assert [path.as_posix() for path in source_files(tmp_path / "inner")] == ["train.py"]


def test_unparsable_and_undecodable_files_are_reported_not_fatal(tmp_path: Path) -> None:
    write(tmp_path, "good.py")
    write(tmp_path, "broken.py", "import torch\ndef f(:\n    return x.cuda()\n")
    write(tmp_path, "plain_broken.py", "def g(:\n    pass\n")
    (tmp_path / "latin1.py").write_bytes("# caf\xe9\nx = 1\n".encode("latin-1"))
    inventory = scan_path(tmp_path, target=Target.TPU)
    assert [finding.path for finding in inventory.findings] == ["good.py"]
    problems = {item.path: (item.line, item.error) for item in inventory.unparsable}
    assert set(problems) == {"broken.py", "latin1.py", "plain_broken.py"}
    assert problems["broken.py"][0] == 2
    assert problems["plain_broken.py"][0] == 1
    assert problems["latin1.py"][1].startswith("not UTF-8")


def test_paths_are_relative_to_the_scanned_folder(tmp_path: Path) -> None:
    write(tmp_path, "repo/src/train.py")
    [finding] = scan_path(tmp_path / "repo").findings
    assert finding.path == "src/train.py"
