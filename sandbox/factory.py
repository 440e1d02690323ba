"""Choose and build the sandbox from settings (`type: auto | docker | local`).

Backends are imported only when chosen, so a host without the docker SDK or engine never touches
them. `auto` takes Docker when an engine answers and the current image is there, and otherwise
says why and falls back to the local sandbox.
"""

from collections.abc import Mapping
from pathlib import Path

from agent.log import get_logger
from agent.settings import SandboxSettings
from sandbox.types import RunSpec, RuntimeName, Sandbox

log = get_logger(__name__)


def make_sandbox(settings: SandboxSettings, *, image: str | None = None) -> Sandbox:
    """The sandbox `settings.type` asks for (`image` overrides `settings.image`)."""
    chosen_image = image or settings.image
    if settings.type == "docker":
        return _docker(chosen_image)
    if settings.type == "local":
        return _local(settings)
    reason = docker_unavailable_reason(chosen_image)
    if reason is None:
        return _docker(chosen_image)
    log.info("sandbox: %s; using the local sandbox instead", reason)
    return _local(settings)


def docker_unavailable_reason(image: str | None = None) -> str | None:
    """None when Docker can run sandboxes now (engine up, current image present), else why not."""
    from sandbox.docker_engine import engine_problem

    problem = engine_problem()
    if problem:
        return problem
    from sandbox.docker_engine import connect, image_status
    from sandbox.image.build import default_image_tag, is_current

    tag = image or default_image_tag()
    client = connect()
    try:
        status = image_status(client, tag)
    finally:
        client.close()
    if not status.present:
        return f"the Docker image {tag} is not built (`agent sandbox build`)"
    if not is_current(status):
        return f"the Docker image {tag} is older than the runtime (`agent sandbox build`)"
    return None


def _docker(image: str | None) -> Sandbox:
    from sandbox.docker_sandbox import DockerSandbox

    return DockerSandbox(image)


def _local(settings: SandboxSettings) -> Sandbox:
    from sandbox.local_sandbox import LocalSandbox

    return LocalSandbox(settings.isolation)


def run_spec(
    settings: SandboxSettings,
    command: list[str],
    workdir: Path,
    *,
    runtime: RuntimeName = "cpu",
    chip: str | None = None,
    env: Mapping[str, str] | None = None,
    artifacts_dir: Path | None = None,
) -> RunSpec:
    """A RunSpec carrying the limits of `settings`."""
    return RunSpec(
        command=list(command),
        workdir=workdir,
        runtime=runtime,
        timeout_s=settings.timeout_s,
        env=dict(env or {}),
        memory_mb=settings.memory_mb,
        cpus=settings.cpus,
        chip=chip,
        pids=settings.pids,
        output_cap_bytes=settings.output_cap_bytes,
        artifacts_dir=artifacts_dir,
    )
