"""Codemods over whole modules and trees: families compose, nothing is written until asked,
the diff applies with git, and the bundled example migrates completely."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent.settings import Target
from tools.codemods import migrate_source, migrate_tree, preview, unified_diff, write_migrations
from tools.rules import families
from tools.scanner import scan_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "evals" / "suite" / "amp_classifier"
KITCHEN_SINK = Path(__file__).parent / "data" / "kitchen_sink.py.txt"
SAMPLES = {"amp_classifier": EXAMPLE / "train.py", "kitchen_sink": KITCHEN_SINK}


def by_family(source: str, target: Target, order: list[str]) -> str:
    grouped = families()
    for family in order:
        source = migrate_source(
            source, target, rules={rule.code for rule in grouped[family]}
        ).source
    return source


@pytest.mark.parametrize("sample", sorted(SAMPLES))
@pytest.mark.parametrize("target", list(Target))
def test_families_applied_one_by_one_compose_to_all_at_once(sample: str, target: Target) -> None:
    source = SAMPLES[sample].read_text(encoding="utf-8")
    together = migrate_source(source, target).source
    order = list(families())
    assert together != source
    assert by_family(source, target, order) == together
    assert by_family(source, target, order[::-1]) == together


@pytest.mark.parametrize("target", list(Target))
def test_the_example_is_migrated_completely(target: Target) -> None:
    source = (EXAMPLE / "train.py").read_text(encoding="utf-8")
    before = scan_source(source, "train.py", target=target)
    assert before
    assert all(finding.fixable for finding in before)
    migrated = migrate_source(source, target, path="train.py").source
    assert scan_source(migrated, "train.py", target=target) == []
    cuda_uses = [
        node
        for node in ast.walk(ast.parse(migrated))
        if isinstance(node, ast.Attribute) and node.attr == "cuda" and not _is_backend_flag(node)
    ]
    assert cuda_uses == []


def test_the_kitchen_sink_leaves_only_findings_without_a_codemod() -> None:
    migrated = migrate_source(KITCHEN_SINK.read_text(encoding="utf-8"), Target.TPU).source
    left = scan_source(migrated, target=Target.TPU)
    assert [(finding.rule, finding.fixable) for finding in left] == []
    assert "GradScaler" not in migrated
    assert "dtype=torch.bfloat16" in migrated
    assert "model.float()" in migrated


@pytest.mark.slow
@pytest.mark.parametrize("target", list(Target))
def test_migrated_example_trains_on_a_cpu_only_torch(tmp_path: Path, target: Target) -> None:
    migrated = migrate_source((EXAMPLE / "train.py").read_text(encoding="utf-8"), target).source
    (tmp_path / "train.py").write_text(migrated, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "train.py", "--steps", "6"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    losses = [float(line.split()[-1]) for line in done.stdout.splitlines() if " loss " in line]
    assert len(losses) == 2
    assert losses[-1] < losses[0]
    assert "accuracy" in done.stdout


def _is_backend_flag(node: ast.Attribute) -> bool:
    """`torch.backends.cuda...` (kept for agnostic: harmless on the CPU)."""
    return isinstance(node.value, ast.Attribute) and node.value.attr == "backends"


def copy_example(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    return repo


def test_migrate_tree_writes_nothing_until_asked(tmp_path: Path) -> None:
    repo = copy_example(tmp_path)
    original = (repo / "train.py").read_text(encoding="utf-8")
    migrations = migrate_tree(repo, Target.NEURON)
    assert [migration.path for migration in migrations] == ["train.py"]
    assert (repo / "train.py").read_text(encoding="utf-8") == original
    write_migrations(repo, migrations)
    assert (repo / "train.py").read_text(encoding="utf-8") == migrations[0].after
    assert migrate_tree(repo, Target.NEURON) == []


def test_migrate_tree_selects_rules_and_skips_unparsable_files(tmp_path: Path) -> None:
    repo = copy_example(tmp_path)
    (repo / "broken.py").write_text("def f(:\n    x.cuda()\n", encoding="utf-8")
    [migration] = migrate_tree(repo, Target.TPU, rules={"TP060"})
    assert [fix.rule for fix in migration.applied] == ["TP060"]


def test_unified_diff_applies_with_git(tmp_path: Path) -> None:
    repo = copy_example(tmp_path)
    (repo / "no_newline.py").write_text("import torch\nx = y.cuda()", encoding="utf-8")
    migrations = migrate_tree(repo, Target.AGNOSTIC)
    diff = unified_diff(migrations)
    assert diff.startswith("diff --git a/")
    assert "\\ No newline at end of file" in diff
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (tmp_path / "changes.diff").write_text(diff, encoding="utf-8")
    subprocess.run(["git", "apply", str(tmp_path / "changes.diff")], cwd=repo, check=True)
    for migration in migrations:
        assert (repo / migration.path).read_text(encoding="utf-8") == migration.after


def test_preview_shows_the_diff_and_what_is_left_without_writing(tmp_path: Path) -> None:
    repo = copy_example(tmp_path)
    (repo / "kernels.py").write_text(
        "import triton\n\n@triton.jit\ndef k(x):\n    pass\n", encoding="utf-8"
    )
    original = (repo / "train.py").read_text(encoding="utf-8")
    shown = preview(repo, Target.TPU)
    assert shown.diff.startswith("diff --git a/train.py b/train.py")
    assert "with torch.amp.autocast(device_type=DEVICE.type, dtype=torch.bfloat16):" in shown.diff
    assert shown.fixes == 18
    assert [(finding.path, finding.rule) for finding in shown.manual] == [
        ("kernels.py", "TP142"),
        ("kernels.py", "TP140"),
    ]
    assert (repo / "train.py").read_text(encoding="utf-8") == original
