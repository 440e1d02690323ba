"""Started by the local sandbox in place of the command: joins the run's cgroup, sets the
rlimits, then replaces itself with the command.

Run as `python -I -S launcher.py CONFIG_JSON`, so it imports only the standard library.
"""

import json
import os
import resource
import sys
from pathlib import Path
from typing import TypedDict

EXEC_FAILED = 127


class LaunchConfig(TypedDict):
    """What the launcher does before it execs `argv`."""

    cgroup_procs: list[str]
    """`cgroup.procs` files to write this process's pid to."""
    rlimits: dict[str, list[int]]
    """`{"RLIMIT_NPROC": [soft, hard], ...}`."""
    argv: list[str]
    """The program (absolute path) and its arguments."""


def launch(config: LaunchConfig) -> None:
    """Join the cgroups, set the rlimits and exec `argv` (returns only by exiting on failure)."""
    for procs in config["cgroup_procs"]:
        Path(procs).write_text(str(os.getpid()), encoding="ascii")
    for name, (soft, hard) in config["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    argv = config["argv"]
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"torchport sandbox: cannot start {argv[0]}: {exc}\n")
        sys.exit(EXEC_FAILED)


if __name__ == "__main__":
    launch(json.loads(sys.argv[1]))
