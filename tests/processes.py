"""Finding a test's processes on the host (sandboxed ones included) by a token in their command
line, to check that nothing outlives a run."""

from pathlib import Path


def processes_with(token: str) -> list[int]:
    """Pids of live processes whose command line (arguments joined by spaces) contains `token`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # exited, or not ours to read
        if token in text:
            found.append(int(cmdline.parent.name))
    return found
