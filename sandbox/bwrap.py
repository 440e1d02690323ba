"""The bubblewrap command line of the local sandbox.

The sandboxed process gets new user, pid, network, ipc, uts and mount namespaces, runs as uid
10001 with no capabilities, and sees a read-only root made of: the host's system folders (`/usr`,
`/lib`...), a few files of `/etc`, the Python environment that has torch, and the runtime root.
Only the repo copy and the results folder are writable, plus private tmpfs `/tmp` and `/dev/shm`.
"""

import sys
from dataclasses import dataclass
from pathlib import Path

from sandbox.workspace import SANDBOX_HOSTNAME, SANDBOX_OUT_DIR, SANDBOX_WORK_DIR

SANDBOX_UID = 10001
SANDBOX_RUNTIME_ROOT = "/torchport/runtime"
SANDBOX_BIN = "/torchport/bin"
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
ETC_ENTRIES_WITH_NETWORK = ("resolv.conf", "hosts", "ssl", "ca-certificates", "nsswitch.conf")
GENERATED_ETC = {
    "passwd": "root:x:0:0::/root:/bin/false\n"
    f"sandbox:x:{SANDBOX_UID}:{SANDBOX_UID}::/tmp:/bin/false\n"
    "nobody:x:65534:65534::/nonexistent:/bin/false\n",
    "group": f"root:x:0:\nsandbox:x:{SANDBOX_UID}:\nnogroup:x:65534:\n",
    "hosts": f"127.0.0.1 localhost {SANDBOX_HOSTNAME}\n::1 localhost\n",
}


@dataclass(frozen=True)
class BwrapMounts:
    """The host folders a run needs."""

    work: Path
    out: Path
    runtime_root: Path
    etc: Path
    """Folder holding the generated passwd, group and hosts files."""
    bin_dir: Path | None
    """Folder with a `python` link when the interpreter's own folder has none."""


def python_dirs() -> list[Path]:
    """The folders that make up this interpreter's environment (venv and base installation)."""
    candidates = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    found: set[Path] = set()
    for candidate in candidates:
        found.add(Path(candidate))
        found.add(Path(candidate).resolve())
    system = tuple(Path("/") / name for name in SYSTEM_DIRS)
    return sorted(path for path in found if not _is_under(path, system))


def _is_under(path: Path, parents: tuple[Path, ...]) -> bool:
    return any(path == parent or parent in path.parents for parent in parents)


def write_generated_etc(folder: Path) -> None:
    """Write passwd, group and hosts for the sandbox into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in GENERATED_ETC.items():
        (folder / name).write_text(text)


def bwrap_argv(bwrap: str, mounts: BwrapMounts, *, network: bool, command: list[str]) -> list[str]:
    """The full `bwrap ... -- command` argument list."""
    argv = [bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]
    argv += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
    argv += ["--hostname", SANDBOX_HOSTNAME]
    if network:
        argv.append("--share-net")
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    argv += _system_mounts()
    argv += _etc_mounts(mounts.etc, network=network)
    for folder in python_dirs():
        argv += ["--ro-bind", str(folder), str(folder)]
    argv += ["--ro-bind", str(mounts.runtime_root), SANDBOX_RUNTIME_ROOT]
    if mounts.bin_dir is not None:
        argv += ["--ro-bind", str(mounts.bin_dir), SANDBOX_BIN]
    argv += [
        "--bind",
        str(mounts.work),
        SANDBOX_WORK_DIR,
        "--bind",
        str(mounts.out),
        SANDBOX_OUT_DIR,
    ]
    argv += ["--chdir", SANDBOX_WORK_DIR, "--remount-ro", "/", "--", *command]
    return argv


def _system_mounts() -> list[str]:
    argv = []
    for name in SYSTEM_DIRS:
        path = Path("/") / name
        if path.is_symlink():
            argv += ["--symlink", str(path.readlink()), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    return argv


def _etc_mounts(generated: Path, *, network: bool) -> list[str]:
    argv = []
    entries = ETC_ENTRIES + (ETC_ENTRIES_WITH_NETWORK if network else ())
    for name in entries:
        if (Path("/etc") / name).exists():
            argv += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    for name in GENERATED_ETC:
        if not (network and name in entries):
            argv += ["--ro-bind", str(generated / name), f"/etc/{name}"]
    return argv
