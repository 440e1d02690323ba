"""`LocalSandbox`: isolation without a Docker engine (the embedded default).

Each run works on a temporary copy of the repo, inside bubblewrap (`bwrap.py`): new namespaces,
no network, read-only system, uid 10001. Where bwrap is missing or unusable, `unshare` gives a
new network and pid namespace, but no file isolation (the process can write wherever its user
can; `agent sandbox doctor` says so). Limits come from a per-run cgroup when the cgroup filesystem
is writable (`cgroups.py`), else from rlimits on each process.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent.errors import BadInputError, InfraError
from agent.log import get_logger
from sandbox import bwrap, launcher
from sandbox.cgroups import Cgroup, CgroupLimits, cgroup_problem, create_cgroup
from sandbox.environment import SandboxPaths, sandbox_environment
from sandbox.local_limits import memory_failure_in, rlimits_for
from sandbox.process import ProcessOutcome, run_captured
from sandbox.result import build_result
from sandbox.runtime_root import staged_runtime_root
from sandbox.types import RunResult, RunSpec
from sandbox.workspace import SANDBOX_OUT_DIR, Workspace

log = get_logger(__name__)

Isolation = Literal["auto", "bwrap", "unshare"]


@dataclass(frozen=True)
class _Plan:
    """How one run is started: the argv (bwrap or unshare, which find the program on the
    sandbox's PATH), its environment and working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path


class LocalSandbox:
    """Runs commands on this machine under bubblewrap (or unshare), with limits."""

    name = "local"

    def __init__(self, isolation: Isolation = "auto") -> None:
        self.requested = isolation
        self.python = Path(sys.executable)
        """The interpreter (with torch) that runs inside; its environment is mounted read-only."""
        self._isolation: Literal["bwrap", "unshare"] | None = None

    @property
    def isolation(self) -> Literal["bwrap", "unshare"]:
        """The mechanism in use (probed on first use for `auto`)."""
        if self._isolation is None:
            self._isolation = resolve_isolation(self.requested)
        return self._isolation

    def run(self, spec: RunSpec) -> RunResult:
        """Run `spec.command` on a copy of `spec.workdir` and return what happened."""
        _check_spec(spec)
        runtime_root = staged_runtime_root()
        with Workspace(spec.workdir) as workspace:
            plan = self._plan(spec, workspace, runtime_root)
            cgroup = self._cgroup(spec)
            try:
                outcome = self._start(plan, spec, cgroup)
                oom_killed = _out_of_memory(outcome, cgroup)
            finally:
                if cgroup is not None:
                    cgroup.remove()
            results = workspace.collect(spec.artifacts_dir, spec.keep_tree)
        return build_result(
            spec,
            backend=f"{self.name}:{self.isolation}",
            exit_code=outcome.exit_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            duration_s=outcome.duration_s,
            timed_out=outcome.timed_out,
            oom_killed=oom_killed,
            results=results,
        )

    def _cgroup(self, spec: RunSpec) -> Cgroup | None:
        problem = cgroup_problem()
        if problem:
            log.debug("no per-run cgroup (%s): limits are rlimits", problem)
            return None
        limits = CgroupLimits(memory_mb=spec.memory_mb, pids=spec.pids, cpus=spec.cpus)
        return create_cgroup(uuid.uuid4().hex[:12], limits)

    def _start(self, plan: _Plan, spec: RunSpec, cgroup: Cgroup | None) -> ProcessOutcome:
        config: launcher.LaunchConfig = {
            "cgroup_procs": [str(path) for path in cgroup.procs_files] if cgroup else [],
            "rlimits": rlimits_for(spec, with_cgroup=cgroup is not None),
            "argv": plan.argv,
        }
        argv = [str(self.python), "-I", "-S", launcher.__file__, json.dumps(config)]
        return run_captured(
            argv,
            env=plan.env,
            cwd=plan.cwd,
            timeout_s=spec.timeout_s,
            cap_bytes=spec.output_cap_bytes,
            kill_all=cgroup.kill_all if cgroup else None,
        )

    def _plan(self, spec: RunSpec, workspace: Workspace, runtime_root: Path) -> _Plan:
        bin_dir = self._python_bin(workspace.root / "bin")
        if self.isolation == "bwrap":
            return self._bwrap_plan(spec, workspace, runtime_root, bin_dir)
        return self._unshare_plan(spec, workspace, runtime_root, bin_dir)

    def _python_bin(self, shim_dir: Path) -> Path | None:
        """None when the interpreter's folder has a `python`; else a folder linking one."""
        if (self.python.parent / "python").exists():
            return None
        shim_dir.mkdir()
        (shim_dir / "python").symlink_to(self.python)
        (shim_dir / "python3").symlink_to(self.python)
        return shim_dir

    def _bwrap_plan(
        self, spec: RunSpec, workspace: Workspace, runtime_root: Path, bin_dir: Path | None
    ) -> _Plan:
        bwrap.write_generated_etc(workspace.root / "etc")
        mounts = bwrap.BwrapMounts(
            work=workspace.work,
            out=workspace.out,
            runtime_root=runtime_root,
            etc=workspace.root / "etc",
            bin_dir=bin_dir,
        )
        paths = SandboxPaths(
            bin_path=_bin_path(bwrap.SANDBOX_BIN if bin_dir else None, self.python.parent),
            runtime_root=bwrap.SANDBOX_RUNTIME_ROOT,
            out_dir=SANDBOX_OUT_DIR,
            home="/tmp",
        )
        argv = bwrap.bwrap_argv(_which("bwrap"), mounts, network=spec.network, command=spec.command)
        return _Plan(argv=argv, env=sandbox_environment(spec, paths), cwd=workspace.root)

    def _unshare_plan(
        self, spec: RunSpec, workspace: Workspace, runtime_root: Path, bin_dir: Path | None
    ) -> _Plan:
        home = workspace.root / "tmp"
        home.mkdir()
        paths = SandboxPaths(
            bin_path=_bin_path(str(bin_dir) if bin_dir else None, self.python.parent),
            runtime_root=str(runtime_root),
            out_dir=str(workspace.out),
            home=str(home),
        )
        argv = [_which("unshare"), *unshare_flags(network=spec.network), "--", *spec.command]
        return _Plan(argv=argv, env=sandbox_environment(spec, paths), cwd=workspace.work)


def unshare_flags(*, network: bool) -> list[str]:
    """New pid, ipc and (unless asked otherwise) network namespaces; root mapped when needed."""
    flags = ["--pid", "--fork", "--kill-child", "--mount-proc", "--ipc"]
    if not network:
        flags.append("--net")
    if os.geteuid() != 0:
        flags.append("--map-root-user")
    return flags


def resolve_isolation(requested: Isolation) -> Literal["bwrap", "unshare"]:
    """`bwrap` when it is installed and can make namespaces here, else `unshare`."""
    if requested != "auto":
        _which(requested)
        return requested
    problem = bwrap_problem()
    if problem is None:
        return "bwrap"
    log.warning("local sandbox without file isolation (%s); install bubblewrap", problem)
    _which("unshare")
    return "unshare"


def bwrap_problem() -> str | None:
    """None when bubblewrap can create its namespaces here, else why not."""
    found = shutil.which("bwrap")
    if found is None:
        return "bwrap is not installed (Debian package `bubblewrap`)"
    probe = [found, "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "--", "/bin/true"]
    result = subprocess.run(probe, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return f"bwrap cannot create namespaces here: {result.stderr.strip()}"
    return None


def _which(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        raise InfraError(
            f"the local sandbox needs `{program}`, which is not installed",
            hint="apt-get install bubblewrap util-linux, or use the Docker sandbox",
        )
    return found


def _bin_path(shim: str | None, python_dir: Path) -> str:
    parts = [shim] if shim else []
    return ":".join([*parts, str(python_dir), "/usr/local/bin", "/usr/bin", "/bin"])


def _out_of_memory(outcome: ProcessOutcome, cgroup: Cgroup | None) -> bool:
    if cgroup is not None:
        return cgroup.oom_kills() > 0
    return outcome.exit_code != 0 and memory_failure_in(outcome.stderr.text())


def _check_spec(spec: RunSpec) -> None:
    if not spec.command:
        raise BadInputError("no command to run in the sandbox", hint="give the command after `--`")
    if not spec.workdir.is_dir():
        raise BadInputError(f"{spec.workdir} is not a directory", hint="pass the repository folder")
