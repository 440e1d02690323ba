"""`check_parity` guards: each way to fake parity fails with its own reason."""

import json
from pathlib import Path

import numpy as np
import pytest

from tests.parity.factories import probe, probes, reference, run, tree
from tools.parity.model import Reference
from tools.parity.probeset import ProbeSet
from tools.parity.protect import protected_hashes, tree_hash
from tools.parity.report import ParityReport
from tools.parity.spec import ParitySpec
from tools.parity.verdict import check_parity

SPEC = ParitySpec()
LOSSES = [3.0, 2.5, 2.1, 1.8]


def _good() -> tuple[Reference, ProbeSet]:
    base = probes(
        probe("backward", *LOSSES, kind="backward"), probe("save:m.pt:w", [0.5, -0.25, 1.0])
    )
    return reference(base), base


@pytest.fixture
def migrated(tmp_path: Path) -> Path:
    return tree(tmp_path / "migrated", {"train.py": "print('migrated')\n"})


def _codes(report: ParityReport) -> set[str]:
    return {failure.code for failure in report.failures}


def test_matching_run_passes(migrated: Path) -> None:
    ref, base = _good()
    report = check_parity(ref, run(base), SPEC, migrated=migrated, target="agnostic")
    assert report.verdict == "pass", report.failures
    assert [row.verdict for row in report.rows] == ["pass", "pass"]


def test_the_original_itself_is_not_a_migration(tmp_path: Path) -> None:
    original = tree(tmp_path / "original", {"train.py": "x.cuda()\n"})
    ref, base = _good()
    ref.tree = tree_hash(original)
    report = check_parity(ref, run(base), SPEC, migrated=original, target="agnostic")
    assert _codes(report) == {"same_program"}


def test_a_run_on_the_reference_runtime_is_not_the_target(migrated: Path) -> None:
    ref, base = _good()
    report = check_parity(
        ref, run(base, runtime="reference"), SPEC, migrated=migrated, target="agnostic"
    )
    assert _codes(report) == {"same_program"}


def test_probe_files_not_written_by_the_runtime_fail(migrated: Path) -> None:
    ref, base = _good()
    base.problems.append("probes.json was not written by the torchport runtime (bad digest)")
    report = check_parity(ref, run(base), SPEC, migrated=migrated, target="agnostic")
    assert _codes(report) == {"probe_integrity"}


def test_edited_test_files_fail(tmp_path: Path) -> None:
    files = {"train.py": "a\n", "tests/test_model.py": "assert True\n"}
    original = tree(tmp_path / "original", files)
    migrated = tree(tmp_path / "migrated", {**files, "tests/test_model.py": "pass\n"})
    ref, base = _good()
    ref.protected = protected_hashes(original)
    report = check_parity(ref, run(base), SPEC, migrated=migrated, target="agnostic")
    assert _codes(report) == {"protected_changed"}
    assert "tests/test_model.py was changed" in report.failures[0].message


def test_a_different_exit_code_fails(migrated: Path) -> None:
    ref, base = _good()
    report = check_parity(
        ref, run(base, exit_codes=[1]), SPEC, migrated=migrated, target="agnostic"
    )
    assert _codes(report) == {"exit_code"}


def test_no_probes_fails(migrated: Path) -> None:
    ref, _ = _good()
    report = check_parity(ref, run(probes()), SPEC, migrated=migrated, target="agnostic")
    assert "no_probes" in _codes(report)


def test_a_reference_without_probes_proves_nothing(migrated: Path) -> None:
    report = check_parity(
        reference(probes()), run(probes()), SPEC, migrated=migrated, target="agnostic"
    )
    assert _codes(report) == {"no_probes"}


@pytest.mark.parametrize(("calls", "passes"), [(None, False), (0, False), (30, False), (80, True)])
def test_device_targets_must_show_device_work(
    migrated: Path, calls: int | None, passes: bool
) -> None:
    ref, base = _good()
    report = check_parity(ref, run(base, device_calls=calls), SPEC, migrated=migrated, target="tpu")
    assert (_codes(report) == set()) is passes
    if not passes:
        assert _codes(report) == {"not_on_device"}
        assert report.to_dict()["not_on_device"] is True


def test_fp16_autocast_on_tpu_fails_as_precision(migrated: Path) -> None:
    ref, base = _good()
    base.autocast = {"tpu:float16": 4}
    report = check_parity(ref, run(base, device_calls=100), SPEC, migrated=migrated, target="tpu")
    assert "precision" in _codes(report)


def test_wrong_low_precision_dtype_fails(migrated: Path) -> None:
    ref, base = _good()
    ref.low_precision = "bf16"
    base.autocast = {"cpu:float16": 4}
    report = check_parity(ref, run(base), SPEC, migrated=migrated, target="agnostic")
    assert "precision" in _codes(report)


@pytest.mark.parametrize(
    ("losses", "code"),
    [
        ([3.0, 2.5, np.inf, 1.8], "nan_inf"),
        ([2.0] * 4, "degenerate"),
        ([3.0, 2.5, 2.2, 1.8], "probe_mismatch"),
    ],
)
def test_wrong_values_fail_by_kind(migrated: Path, losses: list[float], code: str) -> None:
    ref, _ = _good()
    found = probes(
        probe("backward", *losses, kind="backward"), probe("save:m.pt:w", [0.5, -0.25, 1.0])
    )
    report = check_parity(ref, run(found), SPEC, migrated=migrated, target="agnostic")
    assert _codes(report) == {code}


def test_volatile_and_ignored_probes_are_excluded_and_said_so(migrated: Path) -> None:
    ref, _ = _good()
    ref.volatile = {"save:m.pt:w": "differs between two reference runs"}
    spec = ParitySpec(tolerances={"backward": {"compare": "ignore"}})
    found = probes(
        probe("backward", 9.0, 9.0, 9.0, 9.1, kind="backward"),
        probe("save:m.pt:w", [7.0, 7.0, 7.0]),
    )
    report = check_parity(ref, run(found), spec, migrated=migrated, target="agnostic")
    assert [item["probe"] for item in report.excluded] == ["backward", "save:m.pt:w"]
    assert _codes(report) == {"no_probes"}


def test_grad_scaler_state_missing_from_a_bf16_migration_is_excluded(migrated: Path) -> None:
    ref, found = _good()
    ref.base = probes(
        *ref.base.probes.values(), probe("save:m.pt:scaler.scale", 1024.0, kind="grad-scaler")
    )
    candidate = run(found, runtime="tpu", device_calls=100)
    report = check_parity(ref, candidate, SPEC, migrated=migrated, target="tpu")
    assert report.verdict == "pass", report.failures
    assert [item["probe"] for item in report.excluded] == ["save:m.pt:scaler.scale"]
    assert "GradScaler" in report.excluded[0]["reason"]


def test_a_missing_model_tensor_still_fails(migrated: Path) -> None:
    ref, _ = _good()
    found = probes(probe("backward", *LOSSES, kind="backward"))
    candidate = run(found, runtime="tpu", device_calls=100)
    report = check_parity(ref, candidate, SPEC, migrated=migrated, target="tpu")
    assert report.verdict == "fail"
    assert any(row.reason == "missing" for row in report.rows)


def test_ill_conditioned_probes_use_the_statistic_or_are_excluded(migrated: Path) -> None:
    ref, _ = _good()
    ref.ill_conditioned = {"save:m.pt:w": "moves by up to 0.3 under a 1e-06 input nudge"}
    found = probes(
        probe("backward", *LOSSES, kind="backward"), probe("save:m.pt:w", [1.0, -0.25, 0.5])
    )
    report = check_parity(ref, run(found), SPEC, migrated=migrated, target="agnostic")
    assert report.verdict == "pass"
    assert "compared by mean" in report.rows[1].note
    excluded = check_parity(
        ref, run(found), ParitySpec(statistic="none"), migrated=migrated, target="agnostic"
    )
    assert excluded.excluded[0]["probe"] == "save:m.pt:w"


def test_low_precision_run_is_judged_by_r_and_can_be_marginal(migrated: Path) -> None:
    full = np.linspace(1.0, 2.0, 20)
    error = np.cos(np.arange(20.0)) * 1e-2
    ref = reference(
        probes(probe("w", full)), fp32=probes(probe("w", full)), low=probes(probe("w", full + error)),
        low_precision="bf16",
    )  # fmt: skip
    found = probes(probe("w", full + 1.6 * error), autocast={"cpu:bfloat16": 3})
    report = check_parity(ref, run(found), SPEC, migrated=migrated, target="agnostic")
    assert report.verdict == "marginal"
    assert report.rows[0].ratio == pytest.approx(1.6)


def test_report_is_json_and_renders(migrated: Path) -> None:
    ref, _ = _good()
    found = probes(
        probe("backward", 3.0, 2.5, np.nan, 1.8, kind="backward"),
        probe("save:m.pt:w", [0.5, -0.25, 1.0]),
    )
    report = check_parity(ref, run(found), SPEC, migrated=migrated, target="agnostic")
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert data["verdict"] == "fail"
    assert data["reasons"]
    assert data["rows"][0]["probe"] == "backward"
    assert "| `backward` |" in report.to_markdown()
    assert report.table().row_count == 2
