"""deliver_branch on real repositories: commits land on a new branch and nothing else moves."""

from pathlib import Path

import pytest

from agent.errors import BadInputError
from tests.git.repos import USER_EMAIL, USER_NAME, checkout_snapshot, git, make_work_repo
from tools.git.branch import deliver_branch
from tools.git.commits import CommitPlan
from tools.git.identity import Identity
from tools.git.repo import open_repo

NEW_TRAIN = b"import torch\n\ndevice = torch.accelerator.current_accelerator()\n"
REPORT = b"# Migration report\n\nVerdict: parity\n"


def two_commits() -> list[CommitPlan]:
    return [
        CommitPlan(
            "TP001: select the device with torch.accelerator\n\nTPU has no CUDA device.",
            {"src/train.py": NEW_TRAIN, "src/util.py": None, "run.sh": b"#!/bin/sh\nexit 0\n"},
        ),
        CommitPlan("Add MIGRATION_REPORT.md", {"MIGRATION_REPORT.md": REPORT}),
    ]


def test_commits_land_on_a_new_branch_in_order(work_repo: Path) -> None:
    state = open_repo(work_repo)
    delivery = deliver_branch(state, two_commits(), target="tpu", run_id="run-1")
    assert delivery.branch == "torchport/tpu"
    assert delivery.base_sha == state.head_sha
    assert git(work_repo, "rev-parse", "torchport/tpu") == delivery.head_sha
    log = git(work_repo, "log", "--format=%H %s", f"{state.head_sha}..torchport/tpu").splitlines()
    assert log == [
        f"{delivery.commits[1].sha} Add MIGRATION_REPORT.md",
        f"{delivery.commits[0].sha} TP001: select the device with torch.accelerator",
    ]
    assert git(work_repo, "rev-parse", f"{delivery.commits[0].sha}^") == state.head_sha
    assert delivery.commits[0].files == ("run.sh", "src/train.py", "src/util.py")
    assert git(work_repo, "show", "torchport/tpu:src/train.py") + "\n" == NEW_TRAIN.decode()
    assert git(work_repo, "show", "torchport/tpu:MIGRATION_REPORT.md") + "\n" == REPORT.decode()
    files = git(work_repo, "ls-tree", "-r", "--name-only", "torchport/tpu").splitlines()
    assert "src/util.py" not in files
    assert "README.md" in files
    body = git(work_repo, "log", "-1", "--format=%B", delivery.commits[0].sha)
    assert body.endswith("TPU has no CUDA device.\n\nTorchport-Run: run-1")


def test_existing_modes_are_kept_and_new_files_are_regular(work_repo: Path) -> None:
    delivery = deliver_branch(open_repo(work_repo), two_commits(), target="tpu")
    tree = git(work_repo, "ls-tree", "-r", delivery.head_sha)
    modes = {line.split("\t")[1]: line.split()[0] for line in tree.splitlines()}
    assert modes["run.sh"] == "100755"
    assert modes["MIGRATION_REPORT.md"] == "100644"


def test_user_checkout_is_byte_identical_afterwards(work_repo: Path) -> None:
    before = checkout_snapshot(work_repo)
    main_before = git(work_repo, "rev-parse", "refs/heads/main")
    deliver_branch(open_repo(work_repo), two_commits(), target="tpu")
    assert checkout_snapshot(work_repo) == before
    assert git(work_repo, "rev-parse", "refs/heads/main") == main_before
    assert git(work_repo, "status", "--porcelain", "--ignored") == "!! train.log"


def test_detached_head_is_the_base_and_stays_detached(work_repo: Path) -> None:
    first = git(work_repo, "rev-parse", "HEAD~1")
    git(work_repo, "checkout", "--quiet", "--detach", first)
    before = checkout_snapshot(work_repo)
    delivery = deliver_branch(open_repo(work_repo), two_commits(), target="tpu")
    assert delivery.base_sha == first
    assert git(work_repo, "rev-parse", f"{delivery.commits[0].sha}^") == first
    assert "README.md" not in git(work_repo, "ls-tree", "--name-only", delivery.head_sha)
    assert checkout_snapshot(work_repo) == before


def test_opened_from_a_subfolder(work_repo: Path) -> None:
    delivery = deliver_branch(open_repo(work_repo / "src"), two_commits(), target="neuron")
    assert delivery.branch == "torchport/neuron"
    assert git(work_repo, "show", f"{delivery.head_sha}:src/train.py") + "\n" == NEW_TRAIN.decode()


def test_existing_branch_gets_a_numeric_suffix(work_repo: Path) -> None:
    git(work_repo, "branch", "torchport/tpu")
    git(work_repo, "branch", "torchport/tpu-2")
    state = open_repo(work_repo)
    delivery = deliver_branch(state, two_commits(), target="tpu")
    assert delivery.branch == "torchport/tpu-3"
    assert git(work_repo, "rev-parse", "torchport/tpu") == state.head_sha
    again = deliver_branch(state, two_commits(), target="tpu")
    assert again.branch == "torchport/tpu-4"


def test_a_remote_tracking_branch_also_counts_as_taken(work_repo: Path, tmp_path: Path) -> None:
    git(tmp_path, "init", "--quiet", "--bare", "origin.git")
    git(work_repo, "remote", "add", "origin", str(tmp_path / "origin.git"))
    git(work_repo, "push", "--quiet", "origin", "HEAD:refs/heads/torchport/tpu")
    git(work_repo, "fetch", "--quiet", "origin")
    delivery = deliver_branch(open_repo(work_repo), two_commits(), target="tpu")
    assert delivery.branch == "torchport/tpu-2"


def test_explicit_branch_name(work_repo: Path) -> None:
    delivery = deliver_branch(open_repo(work_repo), two_commits(), target="tpu", branch="mig/x")
    assert delivery.branch == "mig/x"
    assert git(work_repo, "rev-parse", "mig/x") == delivery.head_sha


def test_explicit_branch_that_exists_is_refused(work_repo: Path) -> None:
    git(work_repo, "branch", "mine")
    with pytest.raises(BadInputError, match="branch mine already exists") as caught:
        deliver_branch(open_repo(work_repo), two_commits(), target="tpu", branch="mine")
    assert "--force" in (caught.value.hint or "")


@pytest.mark.parametrize("name", ["bad..name", "-dash", "has space", "end.lock"])
def test_invalid_branch_names_are_refused(work_repo: Path, name: str) -> None:
    with pytest.raises(BadInputError, match="not a valid git branch name"):
        deliver_branch(open_repo(work_repo), two_commits(), target="tpu", branch=name)


def test_a_branch_named_like_the_prefix_blocks_the_default(work_repo: Path) -> None:
    git(work_repo, "branch", "torchport")
    with pytest.raises(BadInputError, match="next to the existing branch torchport"):
        deliver_branch(open_repo(work_repo), two_commits(), target="tpu")


def test_force_replaces_a_branch_torchport_made(work_repo: Path) -> None:
    state = open_repo(work_repo)
    first = deliver_branch(state, two_commits(), target="tpu", run_id="old")
    second = deliver_branch(
        state, [CommitPlan("Only the report", {"R.md": b"r\n"})], target="tpu", force=True
    )
    assert second.branch == "torchport/tpu"
    assert second.replaced_sha == first.head_sha
    assert git(work_repo, "rev-parse", "torchport/tpu") == second.head_sha
    assert git(work_repo, "rev-list", "--count", f"{state.head_sha}..torchport/tpu") == "1"


def test_force_refuses_a_branch_someone_committed_on(work_repo: Path) -> None:
    state = open_repo(work_repo)
    delivery = deliver_branch(state, two_commits(), target="tpu")
    git(work_repo, "switch", "--quiet", "torchport/tpu")
    (work_repo / "mine.txt").write_text("human work\n")
    git(work_repo, "add", "mine.txt")
    git(work_repo, "commit", "--quiet", "-m", "My own fix")
    human_tip = git(work_repo, "rev-parse", "HEAD")
    git(work_repo, "switch", "--quiet", "main")
    with pytest.raises(BadInputError, match="was not made by torchport"):
        deliver_branch(state, two_commits(), target="tpu", force=True)
    assert git(work_repo, "rev-parse", "torchport/tpu") == human_tip != delivery.head_sha


def test_force_refuses_the_checked_out_branch(work_repo: Path) -> None:
    deliver_branch(open_repo(work_repo), two_commits(), target="tpu")
    git(work_repo, "switch", "--quiet", "torchport/tpu")
    with pytest.raises(BadInputError, match="is checked out"):
        deliver_branch(open_repo(work_repo), two_commits(), target="tpu", force=True)


def test_identity_defaults_to_the_users(work_repo: Path) -> None:
    delivery = deliver_branch(open_repo(work_repo), two_commits(), target="tpu")
    people = git(work_repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", delivery.head_sha)
    assert people == f"{USER_NAME} <{USER_EMAIL}>|{USER_NAME} <{USER_EMAIL}>"


def test_identity_falls_back_to_torchport(tmp_path: Path) -> None:
    repo = make_work_repo(tmp_path / "anon", identity=False)
    delivery = deliver_branch(open_repo(repo), two_commits(), target="tpu")
    people = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", delivery.head_sha)
    bot = "torchport <torchport@users.noreply.github.com>"
    assert people == f"{bot}|{bot}"


def test_identity_is_configurable(work_repo: Path) -> None:
    author, committer = Identity("A", "a@x.org"), Identity("C", "c@x.org")
    delivery = deliver_branch(
        open_repo(work_repo), two_commits(), target="tpu", author=author, committer=committer
    )
    people = git(work_repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>", delivery.head_sha)
    assert people == "A <a@x.org>|C <c@x.org>"


def test_a_commit_that_changes_nothing_is_left_out(work_repo: Path) -> None:
    unchanged = (work_repo / "README.md").read_bytes()
    plans = [CommitPlan("No-op", {"README.md": unchanged}), *two_commits()]
    delivery = deliver_branch(open_repo(work_repo), plans, target="tpu")
    assert delivery.skipped == ("No-op",)
    assert [c.message.splitlines()[0] for c in delivery.commits] == [
        "TP001: select the device with torch.accelerator",
        "Add MIGRATION_REPORT.md",
    ]


def test_nothing_to_deliver_creates_no_branch(work_repo: Path) -> None:
    unchanged = (work_repo / "README.md").read_bytes()
    with pytest.raises(ValueError, match="nothing to deliver"):
        deliver_branch(
            open_repo(work_repo), [CommitPlan("x", {"README.md": unchanged})], target="tpu"
        )
    assert git(work_repo, "branch", "--list", "torchport/*") == ""
