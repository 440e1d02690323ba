"""Runs the device suites of tests/runtime/device/ in child interpreters with the emulated device
active (the PrivateUse1 rename is once per process, so they cannot share this one)."""

from pathlib import Path

import pytest

from tests.runtime.harness import run_device_suite

SUITES = sorted(path.name for path in (Path(__file__).parent / "device").glob("check_*.py"))


def test_every_suite_is_found() -> None:
    assert {"check_ops.py", "check_tensors.py", "check_training.py", "check_device_api.py"} <= set(
        SUITES
    )


@pytest.mark.slow
@pytest.mark.parametrize("suite", SUITES)
def test_suite_on_tpu(suite: str) -> None:
    run_device_suite(suite, target="tpu")


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["check_tensors.py", "check_device_api.py"])
def test_suite_on_neuron(suite: str) -> None:
    run_device_suite(suite, target="neuron")
