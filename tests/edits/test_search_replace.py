"""Search/replace edits apply exactly once or are refused with the closest real lines."""

from pathlib import Path

import pytest

from tools.edits import EditRefused, SearchReplace, apply_edit, closest_lines

SOURCE = """import torch


def step(model, x):
    y = model(x.cuda())
    return y.sum()
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(SOURCE)
    return tmp_path


def test_exact_edit_applies(repo: Path) -> None:
    new = apply_edit(repo, SearchReplace("train.py", "x.cuda()", "x.to(device)"))
    assert "model(x.to(device))" in new
    assert (repo / "train.py").read_text() == new


def test_missing_search_text_shows_closest_lines(repo: Path) -> None:
    with pytest.raises(EditRefused) as info:
        apply_edit(repo, SearchReplace("train.py", "    y = model(x.cuda(0))", "    y = model(x)"))
    assert "does not occur" in info.value.reason
    assert "5 |     y = model(x.cuda())" in info.value.closest
    assert "copied exactly" in info.value.for_model()
    assert (repo / "train.py").read_text() == SOURCE


def test_ambiguous_search_text_is_refused(repo: Path) -> None:
    with pytest.raises(EditRefused, match="occurs 2 times"):
        apply_edit(repo, SearchReplace("train.py", "y", "z"))


def test_edit_that_breaks_syntax_is_refused_and_file_kept(repo: Path) -> None:
    with pytest.raises(EditRefused, match="does not parse"):
        apply_edit(repo, SearchReplace("train.py", "return y.sum()", "return y.sum("))
    assert (repo / "train.py").read_text() == SOURCE


def test_paths_outside_the_tree_are_refused(repo: Path) -> None:
    with pytest.raises(EditRefused, match="relative"):
        apply_edit(repo, SearchReplace("/etc/passwd", "root", "x"))
    with pytest.raises(EditRefused, match="relative"):
        apply_edit(repo, SearchReplace("../outside.py", "", "x = 1\n"))


def test_empty_search_creates_a_new_file_only(repo: Path) -> None:
    apply_edit(repo, SearchReplace("kernels/ref.py", "", "def f():\n    return 1\n"))
    assert (repo / "kernels" / "ref.py").read_text().startswith("def f")
    with pytest.raises(EditRefused, match="exists"):
        apply_edit(repo, SearchReplace("train.py", "", "x = 1\n"))


def test_closest_lines_picks_the_most_similar_window() -> None:
    text = "a = 1\nb = 2\nloss = criterion(out, y)\nc = 3\n"
    shown = closest_lines(text, "loss = criterion(output, y)", context=0)
    assert shown == "    3 | loss = criterion(out, y)"
