"""External task manifests: entries load typed; bad URLs, commits and duplicates are refused."""

from pathlib import Path

import pytest

from agent.errors import BadInputError
from agent.settings import Target
from evals.tasks import ExternalTask, load_manifest

ENTRY = """
[[task]]
name = "{name}"
repo = "https://github.com/example/tiny-gpt"
description = "a nanoGPT fork trained on CUDA"
commit = "0123456789abcdef0123456789abcdef01234567"
subdir = "{subdir}"
setup = ["pip install -r requirements.txt"]
run = ["python train.py --max-iters 20"]
timeout_s = 900
difficulty = "medium"
tags = ["device-string", "bf16-autocast"]
needs_llm = true
[task.expected]
tpu = "parity"
neuron = "parity"
agnostic = "parity"
[task.parity]
print_patterns = ['iter \\d+: loss ([0-9.]+)']
"""


def write_manifest(tmp_path: Path, *entries: str) -> Path:
    path = tmp_path / "tasks.toml"
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def entry(name: str = "tiny_gpt", subdir: str = "", **replace: str) -> str:
    text = ENTRY.replace("{name}", name).replace("{subdir}", subdir)
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


def test_entries_load_typed(tmp_path: Path) -> None:
    tasks = load_manifest(write_manifest(tmp_path, entry(), entry("other", subdir="examples/gpt")))
    assert [task.name for task in tasks] == ["tiny_gpt", "other"]
    first = tasks[0]
    assert isinstance(first, ExternalTask)
    assert first.repo == "https://github.com/example/tiny-gpt"
    assert first.commit == "0123456789abcdef0123456789abcdef01234567"
    assert first.setup == ["pip install -r requirements.txt"]
    assert first.expected_verdict(Target.TPU, llm=False) == "manual"
    assert tasks[1].subdir == "examples/gpt"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "0123456789abcdef0123456789abcdef01234567",
            "main",
            "key 'task.0.commit': 'main' is not a commit hash",
        ),
        ("https://github.com/example/tiny-gpt", "github.com/example/tiny-gpt", "key 'task.0.repo'"),
        ('subdir = ""', 'subdir = "../outside"', "key 'task.0.subdir'"),
        ("timeout_s = 900", 'timeout_s = 900\nbranch = "dev"', "key 'task.0.branch': unknown key"),
    ],
)
def test_bad_entries_name_the_key(tmp_path: Path, old: str, new: str, expected: str) -> None:
    path = write_manifest(tmp_path, entry(**{old: new}))
    with pytest.raises(BadInputError) as caught:
        load_manifest(path)
    assert str(path) in caught.value.message
    assert expected in caught.value.message


def test_names_must_be_unique(tmp_path: Path) -> None:
    with pytest.raises(BadInputError) as caught:
        load_manifest(write_manifest(tmp_path, entry(), entry()))
    assert "repeated: ['tiny_gpt']" in caught.value.message


def test_a_manifest_needs_entries(tmp_path: Path) -> None:
    with pytest.raises(BadInputError) as caught:
        load_manifest(write_manifest(tmp_path, "# nothing yet\n"))
    assert "no [[task]] entries" in caught.value.message


def test_an_entry_becomes_a_task_spec_over_its_checkout(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, entry(subdir="examples/gpt"))
    checkout = tmp_path / "clone"
    (checkout / "examples" / "gpt").mkdir(parents=True)
    (checkout / "examples" / "gpt" / "train.py").write_text("print('hi')\n", encoding="utf-8")
    spec = load_manifest(manifest)[0].at(checkout, manifest=manifest)
    assert spec.root == (checkout / "examples" / "gpt").resolve()
    assert spec.scripts() == ["train.py"]
    assert spec.parity.print_patterns == ["iter \\d+: loss ([0-9.]+)"]


def test_a_checkout_without_the_script_is_refused(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path, entry())
    checkout = tmp_path / "clone"
    checkout.mkdir()
    with pytest.raises(BadInputError) as caught:
        load_manifest(manifest)[0].at(checkout, manifest=manifest)
    assert "the command names train.py, which is not in" in caught.value.message


def test_the_documented_example_is_a_valid_manifest(tmp_path: Path) -> None:
    from evals.tasks import manifest

    doc = manifest.__doc__ or ""
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    tasks = load_manifest(write_manifest(tmp_path, example))
    assert [task.name for task in tasks] == ["tiny_gpt"]
