"""Choosing the sandbox from settings."""

import logging
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


def test_auto_without_an_engine_says_why_and_falls_back(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with caplog.at_level(logging.INFO, logger="torchport"):
        _propagate(monkeypatch)
        sandbox = make_sandbox(SandboxSettings())
    assert isinstance(sandbox, LocalSandbox)
    fallbacks = [
        r.getMessage() for r in caplog.records if "local sandbox instead" in r.getMessage()
    ]
    assert len(fallbacks) == 1
    assert "docker" in fallbacks[0].lower()


@pytest.mark.docker
def test_auto_with_an_engine_but_no_such_image_falls_back_naming_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="torchport"):
        _propagate(monkeypatch)
        sandbox = make_sandbox(SandboxSettings(image="torchport-sandbox:never-built"))
    assert isinstance(sandbox, LocalSandbox)
    assert "torchport-sandbox:never-built is not built" in caplog.text


def test_run_spec_carries_the_settings_limits(tmp_path: Path) -> None:
    settings = load_settings(None, env={"TORCHPORT_SANDBOX__MEMORY_MB": "777"}).sandbox
    spec = run_spec(settings, ["python", "x.py"], tmp_path, runtime="tpu", chip="v5e")
    assert (spec.memory_mb, spec.pids, spec.timeout_s) == (777, settings.pids, settings.timeout_s)
    assert (spec.runtime, spec.chip, spec.command) == ("tpu", "v5e", ["python", "x.py"])


def _propagate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The torchport logger does not propagate (rich handler); caplog listens at the root."""
    monkeypatch.setattr(logging.getLogger("torchport"), "propagate", True)
