"""Connecting to the Docker engine, and what the sandbox image looks like to it."""

import os
from dataclasses import dataclass
from typing import Any

from agent.errors import InfraError

PING_TIMEOUT_S = 5
API_TIMEOUT_S = 120


def engine_problem() -> str | None:
    """None when a local Docker engine answers a ping, else why not (one line)."""
    host = os.environ.get("DOCKER_HOST", "")
    if host and not host.startswith("unix://"):
        return f"DOCKER_HOST={host} is not a local socket; the sandbox bind-mounts host folders"
    try:
        import docker
        from docker.errors import DockerException

        client = docker.from_env(timeout=PING_TIMEOUT_S)
    except DockerException as exc:
        return f"no Docker engine reachable: {exc}"
    try:
        client.ping()
    except DockerException as exc:
        return f"the Docker engine does not answer: {exc}"
    except OSError as exc:  # requests' connection errors are OSErrors
        return f"the Docker engine does not answer: {exc}"
    finally:
        client.close()
    return None


def connect() -> Any:
    """A `docker.DockerClient` for the local engine; InfraError saying how to get one."""
    problem = engine_problem()
    if problem:
        raise InfraError(
            problem,
            hint="start the engine (`dockerd --storage-driver=overlay2 --iptables=false "
            "--bridge=none &` as root) or use --sandbox local",
        )
    import docker

    return docker.from_env(timeout=API_TIMEOUT_S)


@dataclass(frozen=True)
class ImageStatus:
    """The sandbox image as the engine has it."""

    tag: str
    present: bool
    labels: dict[str, str]

    def label(self, key: str) -> str | None:
        """One of the image's labels, None when absent."""
        return self.labels.get(key)


def image_status(client: Any, tag: str) -> ImageStatus:
    """Whether `tag` exists, with its labels."""
    from docker.errors import ImageNotFound

    try:
        image = client.images.get(tag)
    except ImageNotFound:
        return ImageStatus(tag=tag, present=False, labels={})
    return ImageStatus(tag=tag, present=True, labels=dict(image.labels or {}))
