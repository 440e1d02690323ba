"""`DockerSandbox`: each run in a fresh container of the sandbox image, on a real engine.

The container has no network (`network_mode=none`), runs as uid 10001 with every capability
dropped and no-new-privileges, under memory (no swap), CPU and pids limits, with a read-only root
filesystem; only the repo copy (`/torchport/work`), the results folder (`/torchport/out`) and tmpfs
`/tmp` are writable. Its environment is built from scratch. Output is streamed through the attach
API into bounded buffers (the engine keeps no log: log driver `none`), a timeout kills it, and it
is removed afterwards whatever happens, Ctrl-C included.
"""

import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from agent.errors import BadInputError, InfraError
from agent.log import get_logger
from sandbox.docker_engine import connect, image_status
from sandbox.environment import SandboxPaths, sandbox_environment
from sandbox.image.build import default_image_tag, is_current
from sandbox.output import CappedOutput
from sandbox.process import ProcessOutcome
from sandbox.result import build_result
from sandbox.types import RunResult, RunSpec
from sandbox.workspace import (
    SANDBOX_HOME,
    SANDBOX_HOSTNAME,
    SANDBOX_OUT_DIR,
    SANDBOX_WORK_DIR,
    Workspace,
)

log = get_logger(__name__)

SANDBOX_UID = 10001
IMAGE_RUNTIME_ROOT = "/opt/torchport"
IMAGE_PATH = "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"
RUN_LABEL = "org.torchport.sandbox-run"
READER_GRACE_S = 5.0
CREATE_GRACE_S = 60.0


class DockerSandbox:
    """Runs commands in containers of the sandbox image."""

    name = "docker"

    def __init__(self, image: str | None = None, *, client: Any = None) -> None:
        self.image = image or default_image_tag()
        self._client = client
        self._image_checked = False

    @property
    def client(self) -> Any:
        """The engine connection (made on first use)."""
        if self._client is None:
            self._client = connect()
        return self._client

    def check_image(self) -> None:
        """InfraError when the image is missing; a warning when it is older than the runtime."""
        status = image_status(self.client, self.image)
        if not status.present:
            raise InfraError(
                f"the sandbox image {self.image} is not built",
                hint="run `agent sandbox build` (or `make test`, which builds it)",
            )
        if not is_current(status):
            log.warning(
                "sandbox image %s is older than torchport's runtime; rebuild it with "
                "`agent sandbox build`",
                self.image,
            )

    def run(self, spec: RunSpec) -> RunResult:
        """Run `spec.command` on a copy of `spec.workdir` in a fresh container."""
        if not spec.command:
            raise BadInputError("no command to run in the sandbox", hint="give it after `--`")
        with Workspace(spec.workdir) as workspace, engine_errors():
            if not self._image_checked:
                self.check_image()
                self._image_checked = True
            user = self._user(workspace)
            container = self._create(spec, self._options(spec, workspace, user))
            try:
                outcome = _attach_and_wait(container, spec)
                container.reload()
                oom_killed = bool(container.attrs["State"].get("OOMKilled"))
            finally:
                container.remove(force=True)
            results = workspace.collect(spec.artifacts_dir, spec.keep_tree)
        return build_result(
            spec,
            backend=self.name,
            exit_code=outcome.exit_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            duration_s=outcome.duration_s,
            timed_out=outcome.timed_out,
            oom_killed=oom_killed,
            results=results,
        )

    def _create(self, spec: RunSpec, options: dict[str, Any]) -> Any:
        """Create the container. The request goes on in a worker thread, so a Ctrl-C meanwhile
        cannot lose the handle of a container the engine makes anyway: it waits for the engine,
        removes the container, and then goes on as a Ctrl-C."""
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchport-create")
        made = pool.submit(self.client.containers.create, self.image, spec.command, **options)
        pool.shutdown(wait=False)
        try:
            return made.result()
        except KeyboardInterrupt:
            try:
                container = made.result(timeout=CREATE_GRACE_S)
            except Exception:  # nothing was made, or nothing we can reach
                container = None
            if container is not None:
                container.remove(force=True)
            raise

    @staticmethod
    def _user(workspace: Workspace) -> str:
        """uid 10001 (the copy is handed to it) when we are root, else our own uid."""
        if os.geteuid() == 0:
            workspace.chown(SANDBOX_UID, SANDBOX_UID)
            return f"{SANDBOX_UID}:{SANDBOX_UID}"
        return f"{os.getuid()}:{os.getgid()}"

    def _options(self, spec: RunSpec, workspace: Workspace, user: str) -> dict[str, Any]:
        from docker.types import LogConfig, Mount, Ulimit

        paths = SandboxPaths(
            bin_path=IMAGE_PATH,
            runtime_root=IMAGE_RUNTIME_ROOT,
            out_dir=SANDBOX_OUT_DIR,
            home=SANDBOX_HOME,
        )
        memory = f"{spec.memory_mb}m"
        return {
            "user": user,
            "working_dir": SANDBOX_WORK_DIR,
            "environment": sandbox_environment(spec, paths),
            "network_mode": None if spec.network else "none",
            "mem_limit": memory,
            "memswap_limit": memory,
            "nano_cpus": int(spec.cpus * 1e9),
            "pids_limit": spec.pids,
            "read_only": True,
            "tmpfs": {"/tmp": "rw,nosuid,nodev,mode=1777"},
            "shm_size": f"{max(64, spec.memory_mb // 4)}m",
            "mounts": [
                Mount(SANDBOX_WORK_DIR, str(workspace.work), type="bind"),
                Mount(SANDBOX_OUT_DIR, str(workspace.out), type="bind"),
            ],
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "ulimits": [Ulimit(name="core", soft=0, hard=0)],
            "init": True,
            "hostname": SANDBOX_HOSTNAME,
            # with network_mode "none" Docker writes no entry for the host name itself
            "extra_hosts": {SANDBOX_HOSTNAME: "127.0.0.1"},
            "labels": {RUN_LABEL: "1"},
            "log_config": LogConfig(type="none"),
            "stdin_open": False,
            "tty": False,
        }


def _attach_and_wait(container: Any, spec: RunSpec) -> ProcessOutcome:
    """Start the container attached, wait up to the timeout (then kill it) and collect the
    output while it runs."""
    from requests.exceptions import ConnectionError as RequestsConnectionError
    from requests.exceptions import ReadTimeout

    stdout = CappedOutput("stdout", spec.output_cap_bytes)
    stderr = CappedOutput("stderr", spec.output_cap_bytes)
    frames = container.client.api.attach(
        container.id, stdout=True, stderr=True, stream=True, demux=True
    )
    reader = threading.Thread(target=_drain, args=(frames, stdout, stderr), daemon=True)
    reader.start()
    start = time.monotonic()
    container.start()
    timed_out = False
    try:
        status = container.wait(timeout=spec.timeout_s)
    except (ReadTimeout, RequestsConnectionError):
        timed_out = True
        _kill(container)
        status = container.wait(timeout=30)
    duration = time.monotonic() - start
    reader.join(READER_GRACE_S)
    return ProcessOutcome(int(status["StatusCode"]), stdout, stderr, duration, timed_out)


def _kill(container: Any) -> None:
    from docker.errors import APIError

    try:
        container.kill()
    except APIError as exc:
        if exc.status_code != 409:  # 409: it exited between the timeout and the kill
            raise


@contextmanager
def engine_errors() -> Iterator[None]:
    """Engine and transport failures as InfraError (Ctrl-C and our own errors pass through)."""
    from docker.errors import DockerException
    from requests.exceptions import RequestException

    try:
        yield
    except (DockerException, RequestException) as exc:
        raise InfraError(
            f"the Docker engine failed while running the sandbox: {exc}",
            hint="check the engine with `agent sandbox doctor`, or use --sandbox local",
        ) from exc


def _drain(frames: Any, stdout: CappedOutput, stderr: CappedOutput) -> None:
    for out_chunk, err_chunk in frames:
        if out_chunk:
            stdout.write(out_chunk)
        if err_chunk:
            stderr.write(err_chunk)
