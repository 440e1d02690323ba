"""Overhead of one sandboxed run, per backend: `python -m evals.perf.sandbox [--runs N]`.

For each command it times the same interpreter run bare on the host and run in each sandbox
(whole `Sandbox.run`: copy, start, wait, clean-up) and prints the difference. Targets: Docker
with `import torch` <= 1.5 s, local `python -c pass` <= 0.3 s. `python -S -c pass` skips
`sitecustomize`, which shows the sandbox's own cost apart from the runtime's activation.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sandbox.types import RunSpec, Sandbox

COMMANDS = {
    "python -c pass": ["python", "-c", "pass"],
    "python -S -c pass": ["python", "-S", "-c", "pass"],
    "import torch": ["python", "-c", "import torch"],
}
TARGETS = {("docker", "import torch"): 1.5, ("local", "python -c pass"): 0.3}


def best_of_interleaved(runs: int, actions: dict[str, Callable[[], object]]) -> dict[str, float]:
    """The fastest of `runs` timings of each action; the actions take turns, so a change in the
    machine's load hits them all alike."""
    timings: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            timings[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in timings.items()}


def bare(command: list[str]) -> Callable[[], object]:
    """Run `command` on the host with this interpreter, no sandbox."""
    argv = [sys.executable, *command[1:]]
    return lambda: subprocess.run(argv, check=True, capture_output=True)


def sandboxed(sandbox: Sandbox, command: list[str], repo: Path) -> Callable[[], object]:
    """Run `command` in `sandbox`; a failed run stops the benchmark."""

    def action() -> object:
        artifacts = repo.with_name("artifacts")
        result = sandbox.run(RunSpec(command, repo, timeout_s=120, artifacts_dir=artifacts))
        if not result.ok:
            raise SystemExit(f"{sandbox.name}: {command} failed: {result.stderr[-500:]}")
        return result

    return action


def available_sandboxes(names: list[str]) -> dict[str, Sandbox]:
    """The sandboxes asked for that can run here (Docker needs an engine and the image)."""
    from sandbox.factory import docker_unavailable_reason
    from sandbox.local_sandbox import LocalSandbox

    found: dict[str, Sandbox] = {}
    for name in names:
        if name == "docker":
            reason = docker_unavailable_reason()
            if reason:
                print(f"docker: skipped ({reason})")
                continue
            from sandbox.docker_sandbox import DockerSandbox

            found[name] = DockerSandbox()
        else:
            found[name] = LocalSandbox("unshare" if name == "local-unshare" else "bwrap")
    return found


def main() -> None:
    """Time every command bare and in every sandbox; print overheads against the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--backends", nargs="+", default=["docker", "local", "local-unshare"])
    args = parser.parse_args()
    sandboxes = available_sandboxes(args.backends)
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        repo.mkdir()
        (repo / "train.py").write_text("print('hello')\n")
        print(f"{'backend':<14} {'command':<18} {'bare s':>7} {'sandbox s':>9} {'overhead s':>10}")
        for label, command in COMMANDS.items():
            actions = {"bare": bare(command)}
            actions |= {name: sandboxed(box, command, repo) for name, box in sandboxes.items()}
            best = best_of_interleaved(args.runs, actions)
            for name in sandboxes:
                print(_row(name, label, best["bare"], best[name]))


def _row(name: str, label: str, host: float, inside: float) -> str:
    overhead = inside - host
    row = f"{name:<14} {label:<18} {host:>7.3f} {inside:>9.3f} {overhead:>10.3f}"
    target = TARGETS.get((name, label))
    if target is not None:
        row += f"  target <= {target} s: " + ("met" if overhead <= target else "MISSED")
    return row


if __name__ == "__main__":
    main()
