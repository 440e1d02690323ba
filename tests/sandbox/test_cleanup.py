"""Nothing is left behind: not on Ctrl-C, not when the image is missing."""

import signal
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.errors import InfraError
from sandbox.types import RunSpec, Sandbox
from tests.processes import processes_with


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder the sandbox's workspaces go to, for this test alone."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def ctrl_c_after() -> Iterator[None]:
    """A Ctrl-C (KeyboardInterrupt in the main thread) 2.5 s into the test."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 2.5)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.slow
def test_ctrl_c_kills_the_run_and_removes_its_traces(
    backend: Sandbox, repo: Path, private_tmp: Path, ctrl_c_after: None
) -> None:
    token = f"torchport-ctrl-c-{uuid.uuid4().hex[:8]}"
    program = f"import os, time\nos.fork()\ntime.sleep(120)  # {token}"
    with pytest.raises(KeyboardInterrupt):
        backend.run(RunSpec(["python", "-c", program], repo, artifacts_dir=repo.parent / "out"))
    deadline = time.monotonic() + 10
    while processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_with(token) == []
    assert [path.name for path in private_tmp.iterdir()] == []
    if backend.name == "docker":
        from sandbox.docker_sandbox import RUN_LABEL

        client = backend.client  # type: ignore[attr-defined]
        runs = client.containers.list(all=True, filters={"label": RUN_LABEL})
        assert [run.id for run in runs if token in " ".join(run.attrs["Config"]["Cmd"])] == []


@pytest.mark.docker
def test_a_missing_image_is_an_infra_error_with_the_fix(repo: Path) -> None:
    from sandbox.docker_sandbox import DockerSandbox

    with pytest.raises(InfraError) as raised:
        DockerSandbox("torchport-sandbox:never-built").run(RunSpec(["true"], repo))
    assert "torchport-sandbox:never-built is not built" in raised.value.message
    assert raised.value.hint is not None
    assert "agent sandbox build" in raised.value.hint


@pytest.mark.docker
def test_an_engine_error_is_an_infra_error(repo: Path) -> None:
    from sandbox.docker_sandbox import DockerSandbox

    with pytest.raises(InfraError) as raised:
        DockerSandbox("Not A:valid reference").run(RunSpec(["true"], repo))
    assert "invalid reference format" in raised.value.message


@pytest.mark.docker
def test_ctrl_c_while_the_engine_creates_the_container_removes_it(
    repo: Path, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docker.models.containers import ContainerCollection

    from sandbox.docker_sandbox import RUN_LABEL, DockerSandbox

    sandbox = DockerSandbox()
    real_create = ContainerCollection.create
    made: list[str] = []

    def slow_create(self: ContainerCollection, *args: object, **kwargs: object) -> object:
        container = real_create(self, *args, **kwargs)
        made.append(container.id)
        signal.setitimer(signal.ITIMER_REAL, 0.2)  # Ctrl-C before the answer is back
        time.sleep(1.0)
        return container

    monkeypatch.setattr(ContainerCollection, "create", slow_create)

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            sandbox.run(RunSpec(["sleep", "60"], repo))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert len(made) == 1  # the engine did make one
    runs = sandbox.client.containers.list(all=True, filters={"label": RUN_LABEL})
    assert [run.id for run in runs if run.id in made] == []
    assert [path.name for path in private_tmp.iterdir()] == []
