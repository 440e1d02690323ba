"""The task.toml loader: valid specs load; each kind of mistake names the file and the key."""

from pathlib import Path

import pytest

from agent.errors import BadInputError
from agent.settings import Target
from evals.tasks import load_suite, load_task
from tools.parity.spec import ParitySpec

VALID = """
name = "{name}"
description = "a small CUDA-first script"
difficulty = "easy"
tags = ["cuda-calls", "device-string"]
needs_llm = false
run = ["python train.py --steps 3"]
timeout_s = 60

[expected]
tpu = "parity"
neuron = "parity"
agnostic = "manual"

[expected.reasons]
agnostic = "the CPU run is too slow"

[parity]
print_patterns = ['loss (?P<loss>\\S+)', 'acc (\\S+)']
rtol = 1e-3
protected = ["data.py"]

[parity.tolerances."print:loss*"]
atol = 0.01
"""


def write_case(
    root: Path, text: str, name: str = "demo", files: tuple[str, ...] = ("train.py", "data.py")
) -> Path:
    folder = root / name
    folder.mkdir()
    for file in files:
        (folder / file).write_text("x = 1\n", encoding="utf-8")
    (folder / "task.toml").write_text(text.replace("{name}", name), encoding="utf-8")
    return folder


def error_of(folder: Path) -> str:
    with pytest.raises(BadInputError) as caught:
        load_task(folder)
    return caught.value.message


def test_a_valid_task_loads_with_its_fields(tmp_path: Path) -> None:
    spec = load_task(write_case(tmp_path, VALID))
    assert spec.name == "demo"
    assert spec.root == (tmp_path / "demo").resolve()
    assert spec.run == ["python train.py --steps 3"]
    assert spec.scripts() == ["train.py"]
    assert spec.expected.reasons == {Target.AGNOSTIC: "the CPU run is too slow"}


def test_expected_verdict_follows_llm_and_reference_availability(tmp_path: Path) -> None:
    spec = load_task(write_case(tmp_path, VALID))
    assert spec.expected_verdict(Target.TPU) == "parity"
    assert spec.expected_verdict(Target.AGNOSTIC) == "manual"
    assert spec.expected_verdict(Target.TPU, llm=False) == "parity"  # needs_llm = false
    assert spec.expected_verdict(Target.TPU, reference_available=False) == "manual"


def test_tasks_that_need_the_llm_expect_manual_without_it_unless_told(tmp_path: Path) -> None:
    text = VALID.replace("needs_llm = false", "needs_llm = true").replace(
        "[parity]\n", '[expected.no_llm]\nneuron = "parity"\n\n[parity]\n'
    )
    spec = load_task(write_case(tmp_path, text))
    assert spec.expected_verdict(Target.TPU, llm=False) == "manual"
    assert spec.expected_verdict(Target.NEURON, llm=False) == "parity"
    assert spec.expected_verdict(Target.TPU, llm=True) == "parity"


def test_tolerances_may_name_one_command_of_a_pipeline(tmp_path: Path) -> None:
    text = VALID.replace('"print:loss*"]', '"cmd0/save:*"]', 1)
    parity = load_task(write_case(tmp_path, text)).parity
    assert parity.rtol_atol("cmd0/save:model.pt:w") == (1e-3, 0.01)


def test_parity_section_is_the_parity_tools_spec(tmp_path: Path) -> None:
    parity = load_task(write_case(tmp_path, VALID)).parity
    assert isinstance(parity, ParitySpec)
    assert parity.rtol_atol("print:loss (?P<loss>\\S+)") == (1e-3, 0.01)
    assert parity.rtol_atol("print:acc (\\S+)") == (1e-3, ParitySpec().atol)
    assert parity.protected == ["data.py"]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('difficulty = "easy"', 'difficulty = "trivial"', "key 'difficulty'"),
        ("timeout_s = 60", "timeout_s = 60\nretries = 2", "key 'retries': unknown key"),
        ("timeout_s = 60\n", "", "key 'timeout_s': missing (required)"),
        ('tpu = "parity"', 'tpu = "pass"', "key 'expected.tpu'"),
        ('agnostic = "the CPU run is too slow"', "", "say why in reasons.agnostic"),
        (
            'agnostic = "the CPU run',
            'tpu = "because"\nagnostic = "the CPU run',
            "reasons.tpu is given but tpu is expected 'parity'",
        ),
        ("'acc (\\S+)'", "'acc (\\S+) (\\d+)'", "has 2 groups; give one"),
        ("'acc (\\S+)'", "'acc ([0-9'", "is not a valid regex"),
        ('"print:loss*"]', '"print:lossy*"]', "tolerances.print:lossy* matches no print pattern"),
        ('"print:loss*"]', '"loss"]', "probe names start with print:, save: or backward"),
        ('"print:loss*"]', '"cmd1/loss"]', "after a cmd<i>/ or rank<r>/ prefix"),
        ('"print:loss*"]', '"cmd1/print:lossy*"]', "matches no print pattern"),
        ('"device-string"]', '"device-strings"]', "unknown tags ['device-strings']"),
        ('run = ["python train.py --steps 3"]', "run = []", "key 'run'"),
        (
            'run = ["python train.py --steps 3"]',
            'run = ["python \'train.py"]',
            "does not parse as a shell command",
        ),
        (
            "[parity]\n",
            '[expected.no_llm]\ntpu = "manual"\n\n[parity]\n',
            "expected.no_llm is only for tasks with needs_llm = true",
        ),
        ('name = "{name}"', 'name = "Demo-Case"', "must be lower_snake_case"),
    ],
)
def test_mistakes_name_the_file_and_the_key(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert old in VALID, old
    folder = write_case(tmp_path, VALID.replace(old, new, 1))
    message = error_of(folder)
    assert str(folder / "task.toml") in message
    assert expected in message


def test_the_name_must_be_the_folder_name(tmp_path: Path) -> None:
    folder = write_case(tmp_path, VALID.replace('name = "{name}"', 'name = "other"'))
    assert "'other' differs from the folder name 'demo'" in error_of(folder)


def test_a_script_named_by_a_command_must_exist(tmp_path: Path) -> None:
    folder = write_case(tmp_path, VALID, files=("data.py",))
    assert "the command names train.py, which is not in" in error_of(folder)


def test_protected_globs_must_match_a_file(tmp_path: Path) -> None:
    folder = write_case(
        tmp_path, VALID.replace('protected = ["data.py"]', 'protected = ["dataset.py"]')
    )
    assert "key 'parity.protected': 'dataset.py' matches no file" in error_of(folder)


def test_root_cannot_be_set_from_the_file(tmp_path: Path) -> None:
    folder = write_case(tmp_path, 'root = "/etc"\n' + VALID)
    assert "key 'root': unknown key" in error_of(folder)


def test_broken_toml_and_missing_files_are_bad_input(tmp_path: Path) -> None:
    folder = write_case(tmp_path, VALID + "\n[expected\n")
    assert "not valid TOML" in error_of(folder)
    missing = tmp_path / "nothing"
    missing.mkdir()
    assert "no such file" in error_of(missing)


def test_reference_requirements_need_a_reason(tmp_path: Path) -> None:
    folder = write_case(tmp_path, VALID + '\n[reference]\nrequires = ["triton"]\n')
    assert "say in reason what the reference lacks" in error_of(folder)


def test_load_suite_picks_cases_by_glob(tmp_path: Path) -> None:
    for name in ("alpha_one", "alpha_two", "beta"):
        write_case(tmp_path, VALID, name=name)
    assert [spec.name for spec in load_suite(tmp_path, cases="alpha_*")] == [
        "alpha_one",
        "alpha_two",
    ]
    with pytest.raises(BadInputError) as caught:
        load_suite(tmp_path, cases="gamma*")
    assert "no case matches 'gamma*'" in caught.value.message
    assert "alpha_one, alpha_two, beta" in (caught.value.hint or "")
