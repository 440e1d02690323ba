"""Probe files round-trip, and tampering with them is detected; protected files are hashed."""

import hashlib
import hmac
import json
from pathlib import Path

import numpy as np

from tests.parity.factories import probe, probes, tree
from tools.parity.model import Reference
from tools.parity.probeset import ProbeSet
from tools.parity.protect import PYPROJECT_TABLE, changed_protected, protected_hashes


def _runtime_file(folder: Path, key: bytes, *, rank: int | None = None) -> None:
    """A probe file as `sandbox/runtime/probes.py` writes it (signed with `key`)."""
    stem = "probes" if rank is None else f"probes.{rank}"
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / f"{stem}.npz", t000000=np.arange(4.0, dtype=np.float32))
    npz = (folder / f"{stem}.npz").read_bytes()
    doc = {
        "schema": 1, "runtime": "cpu", "rank": rank, "world_size": None,
        "tensor_file": f"{stem}.npz", "tensor_sha256": hashlib.sha256(npz).hexdigest(),
        "autocast": {}, "probes": {
            "backward": {"kind": "backward", "records": [{"dtype": "float", "shape": [], "value": 2.5}]},
            "save:m.pt:w": {"kind": "save", "records": [{"dtype": "float32", "shape": [4], "tensor": "t000000"}]},
        },
    }  # fmt: skip
    body = json.dumps(doc, sort_keys=True).encode()
    doc["digest"] = hmac.new(key, body, hashlib.sha256).hexdigest()
    (folder / f"{stem}.json").write_text(json.dumps(doc))


def test_runtime_files_are_read_and_their_digest_checked(tmp_path: Path) -> None:
    _runtime_file(tmp_path, b"secret")
    found = ProbeSet.from_folder(tmp_path, key=b"secret")
    assert found.problems == []
    assert found.probes["save:m.pt:w"].records[0].array.tolist() == [0.0, 1.0, 2.0, 3.0]  # type: ignore[union-attr]
    assert ProbeSet.from_folder(tmp_path, key=b"other").problems


def test_an_edited_value_or_tensor_file_is_detected(tmp_path: Path) -> None:
    _runtime_file(tmp_path, b"secret")
    doc = json.loads((tmp_path / "probes.json").read_text())
    doc["probes"]["backward"]["records"][0]["value"] = 1.0
    (tmp_path / "probes.json").write_text(json.dumps(doc))
    assert "bad digest" in ProbeSet.from_folder(tmp_path, key=b"secret").problems[0]
    _runtime_file(tmp_path, b"secret")
    np.savez(tmp_path / "probes.npz", t000000=np.zeros(4, dtype=np.float32))
    assert "changed after" in ProbeSet.from_folder(tmp_path, key=b"secret").problems[0]


def test_ranks_are_prefixed(tmp_path: Path) -> None:
    for rank in (0, 1):
        _runtime_file(tmp_path, b"k", rank=rank)
    found = ProbeSet.from_folder(tmp_path, key=b"k")
    assert sorted(found.probes) == [
        "rank0/backward",
        "rank0/save:m.pt:w",
        "rank1/backward",
        "rank1/save:m.pt:w",
    ]


def test_reference_round_trips_through_a_folder(tmp_path: Path) -> None:
    base = probes(probe("backward", 3.0, 2.0, kind="backward"), probe("s", "cuda:0", kind="print"))
    original = Reference(
        source="cpu", commands=[["python", "t.py"]], base=base, exit_codes=[0], device_calls=7,
        volatile={"t": "timing"}, fp32=base, low=base, low_precision="bf16", notes=["n"],
    )  # fmt: skip
    original.save(tmp_path)
    loaded = Reference.load(tmp_path)
    assert loaded.base.probes["s"].records[0].text == "cuda:0"
    assert [float(r.array) for r in loaded.base.probes["backward"].records] == [3.0, 2.0]  # type: ignore[arg-type]
    assert (loaded.device_calls, loaded.volatile, loaded.low_precision) == (
        7,
        {"t": "timing"},
        "bf16",
    )
    assert loaded.low is not None
    assert loaded.low_nudged is None


def test_protected_files_and_the_torchport_table(tmp_path: Path) -> None:
    files = {
        "train.py": "x = 1\n", "tests/test_a.py": "t\n", "conftest.py": "c\n",
        "pyproject.toml": "[project]\nname='x'\n[tool.torchport]\nrun=['python t.py']\n",
    }  # fmt: skip
    original = tree(tmp_path / "a", files)
    hashes = protected_hashes(original, ["data/*.json"])
    assert set(hashes) == {"tests/test_a.py", "conftest.py", PYPROJECT_TABLE}
    migrated = tree(tmp_path / "b", {**files, "train.py": "x = 2\n"})
    (migrated / "pyproject.toml").write_text(
        files["pyproject.toml"].replace("name='x'", "name='y'")
    )
    assert changed_protected(hashes, migrated) == []
    (migrated / "conftest.py").unlink()
    tree(migrated, {"tests/test_b.py": "new\n"})
    assert changed_protected(hashes, migrated) == [
        "conftest.py was deleted",
        "tests/test_b.py was added",
    ]
