"""Choosing the sandbox from settings."""

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.settings import SandboxSettings, load_settings
from sandbox.factory import make_sandbox, run_spec
from sandbox.local_sandbox import LocalSandbox


def test_local_is_local_with_the_configured_isolation() -> None:
    sandbox = make_sandbox(SandboxSettings(type="local", isolation="unshare"))
    assert isinstance(sandbox, LocalSandbox)
    assert sandbox.isolation == "unshare"


def test_docker_is_built_lazily_without_touching_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sandbox.docker_sandbox import DockerSandbox

    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    sandbox = make_sandbox(SandboxSettings(type="docker"), image="some/image:1")
    assert isinstance(sandbox, DockerSandbox)
    assert sandbox.image == "some/image:1"


def test_auto_without_an_engine_says_why_once_and_falls_back(
    monkeypatch: pytest.MonkeyPatch, factory_log: list[str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    sandbox = make_sandbox(SandboxSettings())
    assert isinstance(sandbox, LocalSandbox)
    assert len(factory_log) == 1
    assert "no Docker engine reachable" in factory_log[0]
    assert factory_log[0].endswith("using the local sandbox instead")


@pytest.mark.docker
def test_auto_with_an_engine_but_no_such_image_falls_back_naming_it(
    factory_log: list[str],
) -> None:
    sandbox = make_sandbox(SandboxSettings(image="torchport-sandbox:never-built"))
    assert isinstance(sandbox, LocalSandbox)
    assert len(factory_log) == 1
    assert "torchport-sandbox:never-built is not built" in factory_log[0]


def test_run_spec_carries_the_settings_limits(tmp_path: Path) -> None:
    settings = load_settings(None, env={"TORCHPORT_SANDBOX__MEMORY_MB": "777"}).sandbox
    spec = run_spec(settings, ["python", "x.py"], tmp_path, runtime="tpu", chip="v5e")
    assert (spec.memory_mb, spec.pids, spec.timeout_s) == (777, settings.pids, settings.timeout_s)
    assert (spec.runtime, spec.chip, spec.command) == ("tpu", "v5e", ["python", "x.py"])


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def factory_log() -> Iterator[list[str]]:
    """The messages the factory logs during the test."""
    logger = logging.getLogger("torchport.sandbox.factory")
    collect = _Collect()
    level = logger.level
    logger.addHandler(collect)
    logger.setLevel(logging.DEBUG)
    try:
        yield collect.messages
    finally:
        logger.removeHandler(collect)
        logger.setLevel(level)
