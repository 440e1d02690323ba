"""CommitPlan validation and the Torchport-Run trailer."""

import pytest

from tools.git.commits import CommitPlan, new_run_id, run_id_of, with_run_trailer


def test_plan_keeps_message_and_changes() -> None:
    plan = CommitPlan("TP001: use torch.accelerator\n\nWhy: TPU has no CUDA.", {"a.py": b"x\n"})
    assert plan.subject == "TP001: use torch.accelerator"
    assert plan.changes == {"a.py": b"x\n"}


@pytest.mark.parametrize(
    "path", ["/abs.py", "../up.py", "a/../b.py", "./a.py", "a//b.py", ".git/config", "a\\b.py", ""]
)
def test_paths_must_be_plain_and_relative(path: str) -> None:
    with pytest.raises(ValueError, match="not a repo-relative path"):
        CommitPlan("msg", {path: b""})


def test_empty_message_and_no_changes_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a message"):
        CommitPlan("  \n", {"a.py": b""})
    with pytest.raises(ValueError, match="changes no file"):
        CommitPlan("msg", {})


def test_content_must_be_bytes() -> None:
    with pytest.raises(TypeError, match="must be bytes or None"):
        CommitPlan("msg", {"a.py": "text"})  # type: ignore[dict-item]


def test_trailer_is_added_after_a_blank_line() -> None:
    message = with_run_trailer("Subject\n\nBody line.\n", "run-7")
    assert message == "Subject\n\nBody line.\n\nTorchport-Run: run-7\n"
    assert run_id_of(message) == "run-7"


def test_trailer_joins_an_existing_trailer_block() -> None:
    message = with_run_trailer("Subject\n\nBody.\n\nTorchport-Rules: TP001, TP004", "r1")
    assert message == "Subject\n\nBody.\n\nTorchport-Rules: TP001, TP004\nTorchport-Run: r1\n"
    assert run_id_of(message) == "r1"


def test_subject_only_message_gets_a_trailer_paragraph() -> None:
    assert with_run_trailer("Fix: x", "r2") == "Fix: x\n\nTorchport-Run: r2\n"


def test_messages_without_the_trailer_have_no_run_id() -> None:
    assert run_id_of("Subject\n\nTorchport-Run is mentioned in prose only") is None
    assert run_id_of("Torchport-Run: looks like it but is the subject") is None


def test_run_ids_differ() -> None:
    assert new_run_id() != new_run_id()
