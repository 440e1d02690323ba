"""Scanning a folder: summary counts, automatic share, and the process pool."""

import shutil
from pathlib import Path

from agent.settings import Target
from tools.scanner import scan_path

EXAMPLE = Path(__file__).resolve().parents[2] / "evals" / "suite" / "amp_classifier"


def test_summary_counts_rules_categories_and_the_automatic_share(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "train.py", tmp_path / "train.py")
    (tmp_path / "kernels.py").write_text(
        "import triton\n\n@triton.jit\ndef k(x):\n    pass\n\nclean = 1\n", encoding="utf-8"
    )
    (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
    summary = scan_path(tmp_path, target=Target.AGNOSTIC).summary
    assert summary["files_scanned"] == 3
    assert summary["findings"] == 14
    assert summary["fixable"] == 12
    assert summary["automatic_share"] == round(12 / 14, 4)
    assert summary["by_rule"]["TP002"] == 5
    assert summary["by_rule"]["TP140"] == 1
    assert summary["by_category"]["kernels"] == 2
    assert summary["by_effort"] == {"high": 1, "medium": 1, "none": 12}
    assert summary["files"]["kernels.py"] == {"findings": 2, "fixable": 0, "automatic_share": 0.0}
    assert summary["files"]["train.py"]["automatic_share"] == 1.0
    assert "clean.py" not in summary["files"]
    assert summary["lines_scanned"] == 80 + 7 + 1


def test_a_clean_tree_is_fully_automatic(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import torch\nx = torch.ones(2)\n", encoding="utf-8")
    summary = scan_path(tmp_path).summary
    assert (summary["findings"], summary["automatic_share"]) == (0, 1.0)


def test_process_pool_gives_the_same_inventory_as_one_process(tmp_path: Path) -> None:
    source = (EXAMPLE / "train.py").read_text(encoding="utf-8")
    for index in range(40):  # about 240 kB: large enough for the pool
        (tmp_path / f"m{index:02d}.py").write_text(source * 2, encoding="utf-8")
    (tmp_path / "broken.py").write_text("def f(:\n", encoding="utf-8")
    pooled = scan_path(tmp_path, target=Target.TPU, jobs=2)
    serial = scan_path(tmp_path, target=Target.TPU, jobs=1)
    assert pooled.files == serial.files
    assert len(pooled.findings) == 40 * 36
