"""The parity spec: from pyproject.toml, torchport.toml and flags, with clear errors."""

from pathlib import Path

import pytest

from agent.errors import BadInputError
from agent.settings import load_settings
from tests.parity.factories import tree
from tools.parity.spec import ParitySpec, load_spec


def test_spec_layers_pyproject_then_torchport_toml_then_flags(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "pyproject.toml": "[tool.torchport.parity]\nprint_patterns = ['loss (\\S+)']\nrtol = 0.01\n",
            "torchport.toml": "[parity]\natol = 0.5\n",
        },
    )
    spec = load_spec(tmp_path, {"statistic": "std", "rtol": None})
    assert (spec.print_patterns, spec.rtol, spec.atol, spec.statistic) == (
        ["loss (\\S+)"], 0.01, 0.5, "std",
    )  # fmt: skip


def test_pattern_without_a_group_is_rejected_with_the_file_named(tmp_path: Path) -> None:
    tree(tmp_path, {"pyproject.toml": "[tool.torchport.parity]\nprint_patterns = ['loss']\n"})
    with pytest.raises(BadInputError, match=r"pyproject.toml.*needs one group"):
        load_spec(tmp_path)


def test_tolerance_globs_merge_in_order() -> None:
    spec = ParitySpec(
        tolerances={"save:*": {"rtol": 1e-3}, "save:*.bias": {"atol": 1e-4, "r_pass": 1.5}}
    )
    assert spec.rtol_atol("save:m.pt:fc.bias") == (1e-3, 1e-4)
    assert spec.rtol_atol("backward") == (1e-4, 1e-5)
    assert spec.tolerance_for("save:m.pt:fc.bias").r_pass == 1.5


def test_agent_settings_carry_the_spec(tmp_path: Path) -> None:
    tree(tmp_path, {"pyproject.toml": "[tool.torchport.parity]\nstatistic = 'none'\n"})
    settings = load_settings(tmp_path, env={})
    assert isinstance(settings.parity, ParitySpec)
    assert settings.parity.statistic == "none"
    with pytest.raises(BadInputError, match=r"parity\.statistik"):
        load_settings(tmp_path, env={"TORCHPORT_PARITY__STATISTIK": "mean"})


def test_tolerance_globs_cover_the_commands_and_ranks_of_a_run() -> None:
    spec = ParitySpec(tolerances={"print:acc*": {"atol": 0.01}, "cmd0/save:*": {"rtol": 0.1}})
    assert spec.rtol_atol("cmd1/print:acc (\\S+)") == (spec.rtol, 0.01)
    assert spec.rtol_atol("rank1/print:acc (\\S+)") == (spec.rtol, 0.01)
    assert spec.rtol_atol("cmd0/save:m.pt:w") == (0.1, spec.atol)
    assert spec.rtol_atol("cmd1/save:m.pt:w") == (spec.rtol, spec.atol)
