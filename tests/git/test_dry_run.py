"""describe_delivery_plan and delivery_diff: what would happen, with nothing written."""

from pathlib import Path

from tests.git.repos import git, git_dir_snapshot
from tools.git.commits import CommitPlan
from tools.git.dry_run import delivery_diff, describe_delivery_plan, plan_file_changes
from tools.git.repo import open_repo

# src/train.py at HEAD has 4 lines; this keeps 3 and replaces the device line.
TRAIN_V2 = b"import torch\n\ndevice = torch.device('tpu')\nmodel = Net().to(device)\n"
TRAIN_V3 = TRAIN_V2 + b"print(device)\n"


def plans() -> list[CommitPlan]:
    return [
        CommitPlan("TP001: device", {"src/train.py": TRAIN_V2, "src/util.py": None}),
        CommitPlan("TP002: log the device", {"src/train.py": TRAIN_V3, "blob.bin": b"\0\1\2"}),
        CommitPlan("Add MIGRATION_REPORT.md", {"MIGRATION_REPORT.md": b"a\nb\nc\n"}),
    ]


def test_plan_lists_branch_commits_and_counts(work_repo: Path) -> None:
    state = open_repo(work_repo)
    text = describe_delivery_plan(state, plans(), "tpu")
    assert text.splitlines() == [
        f"Would create branch torchport/tpu from main at {state.head_sha[:7]}, 3 commit(s) "
        "by Ada Lovelace <ada@example.org>:",
        "  1. TP001: device",
        "       M src/train.py  +1 -1",
        "       D src/util.py  +0 -2",
        "  2. TP002: log the device",
        "       A blob.bin  binary",
        "       M src/train.py  +1 -0",
        "  3. Add MIGRATION_REPORT.md",
        "       A MIGRATION_REPORT.md  +3 -0",
        "Nothing was written: no branch, commit or object.",
    ]


def test_plan_names_the_suffixed_branch_and_no_op_commits(work_repo: Path) -> None:
    git(work_repo, "branch", "torchport/tpu")
    readme = (work_repo / "README.md").read_bytes()
    text = describe_delivery_plan(
        open_repo(work_repo), [CommitPlan("noop", {"README.md": readme})], "tpu"
    )
    assert "Would create branch torchport/tpu-2 " in text
    assert "(changes nothing: would be left out)" in text


def test_dry_run_writes_nothing_in_the_repository(work_repo: Path) -> None:
    before = git_dir_snapshot(work_repo)
    state = open_repo(work_repo)
    describe_delivery_plan(state, plans(), "tpu")
    delivery_diff(state, plans())
    plan_file_changes(state, plans())
    assert git_dir_snapshot(work_repo) == before


def test_diff_is_the_whole_plan_against_head(work_repo: Path) -> None:
    diff = delivery_diff(open_repo(work_repo), plans())
    assert "diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nBinary files differ\n" in diff
    assert "--- a/src/train.py\n+++ b/src/train.py\n" in diff
    assert "-device = torch.device('cuda')\n+device = torch.device('tpu')\n" in diff
    assert "+print(device)\n" in diff
    assert "deleted file mode 100644\n--- a/src/util.py\n+++ /dev/null\n" in diff
    assert "--- /dev/null\n+++ b/MIGRATION_REPORT.md\n" in diff


def test_diff_applies_with_git_apply(work_repo: Path, tmp_path: Path) -> None:
    text_only = [
        CommitPlan("a", {"src/train.py": TRAIN_V3, "src/util.py": None}),
        CommitPlan("b", {"new/file.txt": b"no newline at end"}),
    ]
    patch = tmp_path / "plan.patch"
    patch.write_text(delivery_diff(open_repo(work_repo), text_only))
    git(work_repo, "apply", "--check", str(patch))
    git(work_repo, "apply", str(patch))
    assert (work_repo / "src" / "train.py").read_bytes() == TRAIN_V3
    assert (work_repo / "new" / "file.txt").read_bytes() == b"no newline at end"
    assert not (work_repo / "src" / "util.py").exists()
