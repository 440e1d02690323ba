"""Build the sandbox image `torchport-sandbox:<version>` and tell whether an image is current.

Two ways to get PyTorch into it: online (default base `python:3.11-slim`, torch from PyTorch's CPU
index) or offline (`--offline`, for hosts without a registry: the wheels come from this host's pip
configuration, are put into the build context, and the build runs without network; the base is
made locally by `make-base-image.sh`). Each image carries labels; `org.torchport.content-hash`
covers the Dockerfile, the runtime root and the torch/numpy pins, so a changed runtime makes the
image stale.
"""

import hashlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from agent import __version__
from agent.errors import BadInputError, InfraError
from agent.log import get_logger
from sandbox.docker_engine import ImageStatus, image_status
from sandbox.runtime_root import copy_runtime_root, runtime_hash

log = get_logger(__name__)

IMAGE_REPOSITORY = "torchport-sandbox"
DEFAULT_BASE = "python:3.11-slim"
LOCAL_BASE = "torchport-base:bookworm"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PYPI_INDEX = "https://pypi.org/simple"
DOCKERFILE = Path(__file__).with_name("Dockerfile")
LABEL_HASH = "org.torchport.content-hash"
LABEL_BASE = "org.torchport.base"
LABEL_EXTRAS = "org.torchport.extras"
LABEL_VERSION = "org.torchport.version"
BUILD_LOG_TAIL = 25


def default_image_tag() -> str:
    """`torchport-sandbox:<torchport version>`."""
    return f"{IMAGE_REPOSITORY}:{__version__}"


@dataclass(frozen=True)
class BuildOptions:
    """How to build the image."""

    tag: str = field(default_factory=default_image_tag)
    base: str = DEFAULT_BASE
    offline: bool = False
    """Wheels from this host's pip configuration into the context; no network while building."""
    torch_index: str = TORCH_CPU_INDEX
    extras: tuple[str, ...] = ()
    """Extra pip requirements (`triton` for running original Triton kernels interpreted)."""


@dataclass(frozen=True)
class BuildOutcome:
    """What `build_image` did."""

    tag: str
    built: bool
    """False when the image was already current with the same base and extras."""
    seconds: float


def build_options(
    *,
    tag: str | None = None,
    base: str | None = None,
    offline: bool = False,
    torch_index: str | None = None,
    extras: tuple[str, ...] = (),
) -> BuildOptions:
    """BuildOptions with the defaults filled in: the default tag; `python:3.11-slim` online,
    the locally made base offline; PyTorch's CPU index (which an offline build cannot use)."""
    if offline and torch_index:
        raise BadInputError("--torch-index has no use with --offline", hint="drop one of them")
    return BuildOptions(
        tag=tag or default_image_tag(),
        base=base or (LOCAL_BASE if offline else DEFAULT_BASE),
        offline=offline,
        torch_index=torch_index or TORCH_CPU_INDEX,
        extras=extras,
    )


def pinned_requirements() -> list[str]:
    """torch and numpy at the versions this host runs (torch without its `+cpu` tag), and pytest:
    run commands are often a repository's own test suite (`python -m pytest`)."""
    torch_release = metadata.version("torch").split("+", 1)[0]
    try:
        pytest = f"pytest=={metadata.version('pytest')}"
    except metadata.PackageNotFoundError:
        pytest = "pytest>=8"
    return [f"torch=={torch_release}", f"numpy=={metadata.version('numpy')}", pytest]


def content_hash() -> str:
    """Digest of what makes an image current: Dockerfile, runtime root, torch/numpy pins."""
    digest = hashlib.sha256(DOCKERFILE.read_bytes())
    digest.update(runtime_hash().encode())
    digest.update("\n".join(pinned_requirements()).encode())
    return digest.hexdigest()


def is_current(status: ImageStatus) -> bool:
    """The image exists and was built from this Dockerfile, runtime and pins."""
    return status.present and status.label(LABEL_HASH) == content_hash()


def _extras_label(extras: tuple[str, ...]) -> str:
    return ",".join(sorted(extras))


def build_image(client: Any, options: BuildOptions, *, force: bool = False) -> BuildOutcome:
    """Build `options.tag` unless an image that is current, with the same base and extras,
    already has that tag (or `force`)."""
    start = time.monotonic()
    status = image_status(client, options.tag)
    same_options = status.label(LABEL_BASE) == options.base and status.label(
        LABEL_EXTRAS
    ) == _extras_label(options.extras)
    if not force and is_current(status) and same_options:
        log.info("sandbox image %s is current", options.tag)
        return BuildOutcome(options.tag, built=False, seconds=time.monotonic() - start)
    with tempfile.TemporaryDirectory(prefix="torchport-image-") as folder:
        context = Path(folder)
        assemble_context(context, client, options)
        _run_build(client, context, options)
    return BuildOutcome(options.tag, built=True, seconds=time.monotonic() - start)


def assemble_context(context: Path, client: Any, options: BuildOptions) -> None:
    """Fill `context` with the Dockerfile, requirements.txt, runtime/ and (offline) wheels/."""
    shutil.copy2(DOCKERFILE, context / "Dockerfile")
    requirements = [*pinned_requirements(), *options.extras]
    (context / "requirements.txt").write_text("\n".join(requirements) + "\n")
    copy_runtime_root(context / "runtime")
    wheels = context / "wheels"
    wheels.mkdir()
    (wheels / ".keep").write_text("")
    if options.offline:
        python_version = base_python_version(client, options.base)
        download_wheels(wheels, requirements, python_version)


def base_python_version(client: Any, base: str) -> str:
    """`3.11` for the Python 3 of image `base` (which must exist locally)."""
    from docker.errors import ContainerError, ImageNotFound

    probe = "import sys; print('%d.%d' % sys.version_info[:2])"
    try:
        output = client.containers.run(
            base, ["python3", "-c", probe], network_mode="none", remove=True
        )
    except ImageNotFound:
        raise BadInputError(
            f"base image {base} is not on this host",
            hint=f"make it with sandbox/image/make-base-image.sh {base}, or pull it",
        ) from None
    except ContainerError as exc:
        raise BadInputError(
            f"base image {base} has no working python3: {exc}",
            hint="use a Debian-like base with python3 and python3-venv",
        ) from None
    return bytes(output).decode().strip()


def download_wheels(dest: Path, requirements: list[str], python_version: str) -> None:
    """`pip download` the requirements and their dependencies (wheels only) into `dest`, from
    the indexes and find-links this host's pip is configured with."""
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(dest)]
    argv += ["--only-binary=:all:", "--python-version", python_version, *requirements]
    log.info("sandbox image: downloading wheels for %s", ", ".join(requirements))
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise InfraError(
            f"pip could not download the wheels for the image: {done.stderr.strip()[-800:]}",
            hint="check `pip config list` (find-links, index) or build online without --offline",
        )


def _pip_source(options: BuildOptions) -> str:
    if options.offline:
        return "--no-index --find-links /tmp/build/wheels"
    return f"--index-url {options.torch_index} --extra-index-url {PYPI_INDEX}"


def _run_build(client: Any, context: Path, options: BuildOptions) -> None:
    labels = {
        LABEL_HASH: content_hash(),
        LABEL_BASE: options.base,
        LABEL_EXTRAS: _extras_label(options.extras),
        LABEL_VERSION: __version__,
    }
    log.info("sandbox image: building %s from %s", options.tag, options.base)
    tail: deque[str] = deque(maxlen=BUILD_LOG_TAIL)
    chunks = client.api.build(
        path=str(context),
        tag=options.tag,
        buildargs={"BASE_IMAGE": options.base, "PIP_SOURCE": _pip_source(options)},
        labels=labels,
        network_mode="none" if options.offline else None,
        rm=True,
        forcerm=True,
        decode=True,
        pull=False,
    )
    for chunk in chunks:
        if "error" in chunk:
            raise InfraError(
                f"building {options.tag} failed: {chunk['error'].strip()}\n" + "".join(tail),
                hint="the lines above are the end of the build log",
            )
        line = chunk.get("stream", "")
        if line.strip():
            tail.append(line)
            log.debug("build: %s", line.rstrip())
    if not image_status(client, options.tag).present:
        raise InfraError(f"the build ended without image {options.tag}", hint="".join(tail))
