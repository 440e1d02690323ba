"""Live isolation checks, as `agent sandbox doctor` runs them: each one runs a small hostile
program in the sandbox and looks at what happened from the host."""

import os
import socket
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sandbox.environment import SandboxPaths, sandbox_environment
from sandbox.types import RunSpec, Sandbox
from sandbox.workspace import tree_digest

PROBE_TIMEOUT_S = 60.0
FORK_ATTEMPTS = 400
PIDS_LIMIT = 32
SANDBOX_ADDED_ENV = frozenset({"HOSTNAME", "PWD", "SHLVL", "_", "TORCHPORT_RT_ACTIVE"})
"""Variables the container runtime, bubblewrap or a shell add on their own."""
NO_PATHS = SandboxPaths(bin_path="", runtime_root="", out_dir="", home="")

NETWORK_PROGRAM = """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3)
    print("CONNECTED")
except OSError as exc:
    print("no-connect:", exc)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("RESOLVED")
except OSError as exc:
    print("no-dns:", exc)
"""
ENV_PROGRAM = """
import os
for name, value in os.environ.items():
    print(f"{name}={value}")
"""
FILES_PROGRAM = """
import pathlib
for target in {targets!r}:
    try:
        pathlib.Path(target).write_text("x")
        print("WROTE", target)
    except OSError as exc:
        print("refused", target, exc.strerror)
for path in pathlib.Path(".").rglob("*"):
    if path.is_file():
        path.write_text("changed")
pathlib.Path("new.txt").write_text("x")
"""
MEMORY_PROGRAM = """
block = bytearray(512 * 1024 * 1024)
print("ALLOCATED", len(block))
"""
FORK_PROGRAM = """
import os, time
forked = 0
try:
    for _ in range({attempts}):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        forked += 1
except OSError as exc:
    print("STOPPED:", exc)
print("FORKED", forked)
"""
OUTPUT_PROGRAM = """
import sys
for _ in range(256):
    sys.stdout.write("y" * 4096)
"""


@dataclass(frozen=True)
class Check:
    """One isolation property and whether it held."""

    name: str
    ok: bool
    detail: str


def check_runs(sandbox: Sandbox, repo: Path) -> Check:
    """A trivial program runs and exits 0."""
    result = sandbox.run(_spec(_python("print('ok')"), repo))
    ok = result.exit_code == 0 and "ok" in result.stdout
    return Check("runs", ok, f"exit {result.exit_code} in {result.duration_s:.2f} s")


def check_network(sandbox: Sandbox, repo: Path) -> Check:
    """No TCP connection to a server on the host's loopback, no name resolution."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        program = NETWORK_PROGRAM.format(port=server.getsockname()[1])
        result = sandbox.run(_spec(_python(program), repo))
    ok = result.exit_code == 0 and "no-connect" in result.stdout and "no-dns" in result.stdout
    return Check("no network", ok, " / ".join(result.stdout.strip().splitlines()))


def check_secrets(sandbox: Sandbox, repo: Path) -> Check:
    """No variable of the host's environment gets in, except those the sandbox sets itself."""
    spec = _spec(_python(ENV_PROGRAM), repo)
    result = sandbox.run(spec)
    inside = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    own = set(sandbox_environment(spec, NO_PATHS)) | SANDBOX_ADDED_ENV
    leaked = sorted(k for k, v in inside.items() if k not in own and os.environ.get(k) == v)
    ok = result.exit_code == 0 and bool(inside) and not leaked
    if leaked:
        return Check("no host environment", ok, f"leaked: {', '.join(leaked)}")
    return Check("no host environment", ok, f"{len(inside)} variables, none from the host")


def check_files(sandbox: Sandbox, repo: Path) -> Check:
    """Writes outside the work dir fail; the work dir is writable; the caller's tree is intact."""
    outside = Path(tempfile.mkdtemp(prefix="torchport-outside-"))
    token = f"torchport-probe-{uuid.uuid4().hex[:8]}"
    targets = [outside / token, Path("/") / token, Path(sys.prefix) / token]
    program = FILES_PROGRAM.format(targets=[str(target) for target in targets])
    before = tree_digest(repo)
    try:
        result = sandbox.run(_spec(_python(program), repo))
    finally:
        escaped = [target for target in targets if target.exists()]
        for target in escaped:
            target.unlink()
        outside.rmdir()
    intact = tree_digest(repo) == before
    if result.exit_code != 0:
        return Check("files", False, f"probe failed: {result.stderr.strip()[-300:]}")
    if escaped:
        shown = ", ".join(map(str, escaped))
        return Check("files", False, f"wrote {shown} on the host (removed again)")
    detail = "outside writes refused, caller's tree intact" if intact else "caller's tree changed"
    return Check("files", intact, detail)


def check_memory(sandbox: Sandbox, repo: Path) -> Check:
    """Allocating past the memory limit ends with oom_killed."""
    result = sandbox.run(_spec(_python(MEMORY_PROGRAM), repo, memory_mb=128))
    ok = result.oom_killed and "ALLOCATED" not in result.stdout
    return Check("memory limit", ok, result.message or f"exit {result.exit_code}, not OOM-killed")


def check_pids(sandbox: Sandbox, repo: Path) -> Check:
    """A fork loop stops at the pids limit."""
    program = FORK_PROGRAM.format(attempts=FORK_ATTEMPTS)
    result = sandbox.run(_spec(_python(program), repo, pids=PIDS_LIMIT))
    forked = result.stdout.strip().rpartition("FORKED ")[2] or "?"
    ok = "STOPPED" in result.stdout and forked != str(FORK_ATTEMPTS)
    return Check(
        "pids limit", ok, f"{forked} of {FORK_ATTEMPTS} forks under a limit of {PIDS_LIMIT}"
    )


def check_timeout(sandbox: Sandbox, repo: Path) -> Check:
    """A program sleeping past the timeout is killed and reported timed_out."""
    result = sandbox.run(_spec(["sleep", "60"], repo, timeout_s=1.0))
    ok = result.timed_out and result.duration_s < 30
    return Check("timeout", ok, f"timed_out={result.timed_out} after {result.duration_s:.1f} s")


def check_output_cap(sandbox: Sandbox, repo: Path) -> Check:
    """Output past the cap is dropped and marked."""
    result = sandbox.run(_spec(_python(OUTPUT_PROGRAM), repo, output_cap_bytes=16384))
    ok = result.stdout_truncated and len(result.stdout) < 20000 and "dropped" in result.stdout
    return Check("output cap", ok, f"kept {len(result.stdout)} of {256 * 4096} bytes")


CHECKS: tuple[Callable[[Sandbox, Path], Check], ...] = (
    check_runs,
    check_network,
    check_secrets,
    check_files,
    check_memory,
    check_pids,
    check_timeout,
    check_output_cap,
)


def run_checks(sandbox: Sandbox) -> list[Check]:
    """Every check, each on a fresh small scratch repo."""
    checks = []
    for check in CHECKS:
        with tempfile.TemporaryDirectory(prefix="torchport-doctor-") as folder:
            repo = Path(folder) / "repo"
            repo.mkdir()
            (repo / "train.py").write_text("print('hello')\n")
            (repo / "data").mkdir()
            (repo / "data" / "values.txt").write_text("1 2 3\n")
            checks.append(check(sandbox, repo))
    return checks


def _python(program: str) -> list[str]:
    return ["python", "-c", textwrap.dedent(program)]


def _spec(command: list[str], repo: Path, **changes: Any) -> RunSpec:
    """A probe run; its result files go next to the scratch repo (removed with it)."""
    artifacts = repo.with_name(repo.name + "-artifacts")
    spec = RunSpec(command, repo, timeout_s=PROBE_TIMEOUT_S, artifacts_dir=artifacts)
    return replace(spec, **changes)
