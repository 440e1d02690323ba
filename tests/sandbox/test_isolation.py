"""The acceptance tests of the sandbox contract, against the real Docker engine and both local
isolations (bubblewrap, and the unshare fallback where it makes the same promise)."""

import json
import socket
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sandbox.local_sandbox import LocalSandbox
from sandbox.types import RunSpec, Sandbox
from sandbox.workspace import tree_digest


def python(program: str) -> list[str]:
    return ["python", "-c", textwrap.dedent(program)]


def spec(command: list[str], repo: Path, **changes: Any) -> RunSpec:
    artifacts = repo.with_name(repo.name + "-artifacts")
    return replace(RunSpec(command, repo, timeout_s=120, artifacts_dir=artifacts), **changes)


def test_runs_in_a_copy_of_the_repo(backend: Sandbox, repo: Path) -> None:
    result = backend.run(spec(["python", "train.py"], repo))
    assert result.exit_code == 0, result.stderr
    assert result.ok
    assert result.stdout == "training\n"
    assert result.backend.startswith(backend.name)


def test_no_connection_to_a_server_on_the_host_loopback(backend: Sandbox, repo: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        program = f"""
            import socket
            try:
                socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=3)
                print("CONNECTED")
            except OSError as exc:
                print("refused:", exc)
        """
        result = backend.run(spec(python(program), repo))
        server.setblocking(False)
        with pytest.raises(BlockingIOError):  # nothing reached the backlog
            server.accept()
    assert result.stdout.startswith("refused:"), result.stdout + result.stderr


def test_no_name_resolution(backend: Sandbox, repo: Path) -> None:
    program = """
        import socket
        try:
            print(socket.getaddrinfo("pypi.org", 443)[0])
        except OSError as exc:
            print("unresolved:", exc)
    """
    result = backend.run(spec(python(program), repo))
    assert result.stdout.startswith("unresolved:"), result.stdout


def test_own_host_name_resolves_to_loopback(backend: Sandbox, repo: Path) -> None:
    """torchrun's rendezvous and gloo resolve the host name; with no network that must still work."""
    program = """
        import socket
        print(socket.getaddrinfo(socket.gethostname(), None)[0][4][0])
    """
    result = backend.run(spec(python(program), repo))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() in ("127.0.0.1", "::1") or result.stdout.startswith("172."), (
        result.stdout
    )


def test_a_pipeline_continues_from_the_tree_a_command_left(
    backend: Sandbox, repo: Path, tmp_path: Path
) -> None:
    before = tree_digest(repo)
    carry = tmp_path / "carry"
    first = backend.run(
        spec(python("open('model.txt', 'w').write('trained')"), repo, keep_tree=carry)
    )
    assert first.exit_code == 0, first.stderr
    assert (carry / "model.txt").read_text() == "trained"
    second = backend.run(spec(python("print(open('model.txt').read())"), carry))
    assert second.stdout == "trained\n", second.stderr
    assert tree_digest(repo) == before


@pytest.mark.slow
def test_allocating_past_the_memory_limit_is_oom_killed(backend: Sandbox, repo: Path) -> None:
    program = """
        blocks = []
        for _ in range(64):
            blocks.append(bytearray(16 * 1024 * 1024))
        print("SURVIVED", len(blocks))
    """
    result = backend.run(spec(python(program), repo, memory_mb=192))
    assert result.oom_killed, (result.exit_code, result.stderr[-500:])
    assert not result.ok
    assert "SURVIVED" not in result.stdout
    assert "out of memory" in result.message
    assert "192 MB" in result.message


def test_a_fork_bomb_is_contained_by_the_pids_limit(backend: Sandbox, repo: Path) -> None:
    program = """
        import os, time
        forked = 0
        try:
            while forked < 1000:
                if os.fork() == 0:
                    time.sleep(3)
                    os._exit(0)
                forked += 1
        except OSError as exc:
            print("STOPPED", forked, exc.errno)
    """
    result = backend.run(spec(python(program), repo, pids=40))
    words = result.stdout.split()
    assert words[:1] == ["STOPPED"], result.stdout + result.stderr
    assert int(words[1]) < 40


def test_sleeping_past_the_timeout_is_killed(backend: Sandbox, repo: Path) -> None:
    result = backend.run(spec(["sleep", "60"], repo, timeout_s=1.5))
    assert result.timed_out
    assert not result.ok
    assert 1.4 < result.duration_s < 15
    assert "timeout" in result.message


def test_host_secrets_are_invisible(
    backend: Sandbox, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_host_secret")
    program = """
        import os
        print(sorted(os.environ))
        print(os.environ.get("OPENAI_API_KEY"), os.environ.get("GITHUB_TOKEN"), os.environ["SEED"])
    """
    result = backend.run(spec(python(program), repo, env={"SEED": "7"}))
    assert result.stdout.splitlines()[1] == "None None 7"
    assert "host_secret" not in result.stdout
    assert "host-secret" not in result.stdout


def test_caller_repo_is_byte_identical_after_a_destructive_run(
    backend: Sandbox, repo: Path
) -> None:
    before = tree_digest(repo)
    program = """
        import pathlib, shutil
        pathlib.Path("train.py").write_text("overwritten")
        shutil.rmtree("data")
        pathlib.Path("link.txt").unlink()
        pathlib.Path("new.bin").write_bytes(b"x" * 1000)
        print(sorted(p.name for p in pathlib.Path(".").iterdir()))
    """
    result = backend.run(spec(python(program), repo))
    assert result.stdout.strip() == "['new.bin', 'train.py']", result.stderr
    assert tree_digest(repo) == before


@pytest.mark.parametrize("backend", ["docker", "bwrap"], indirect=True)
def test_writes_outside_the_work_dir_fail(backend: Sandbox, repo: Path, tmp_path: Path) -> None:
    host_folder = tmp_path / "outside"
    host_folder.mkdir()
    targets = ["/etc/torchport-probe", "/usr/torchport-probe", "/torchport-probe"]
    targets += [str(host_folder / "probe"), f"{sys.prefix}/torchport-probe"]
    program = f"""
        import pathlib
        for target in {targets!r}:
            try:
                pathlib.Path(target).write_text("x")
                print("WROTE", target)
            except OSError:
                print("refused")
        pathlib.Path("inside.txt").write_text("ok")
        print(pathlib.Path("inside.txt").read_text())
    """
    result = backend.run(spec(python(program), repo))
    assert result.stdout.split() == ["refused"] * len(targets) + ["ok"], result.stdout
    assert not list(host_folder.iterdir())


def test_the_unshare_fallback_says_it_does_not_isolate_files(repo: Path) -> None:
    from sandbox.checks import check_files

    check = check_files(LocalSandbox("unshare"), repo)
    assert not check.ok
    assert "on the host (removed again)" in check.detail


def test_oversized_output_is_truncated_with_a_marker(backend: Sandbox, repo: Path) -> None:
    program = """
        import sys
        sys.stdout.write("START\\n")
        for _ in range(2000):
            sys.stdout.write("x" * 1023 + "\\n")
        sys.stdout.write("END\\n")
    """
    result = backend.run(spec(python(program), repo, output_cap_bytes=8192))
    assert result.stdout_truncated
    assert result.stdout.startswith("START\n")
    assert result.stdout.endswith("END\n")
    assert "bytes of stdout dropped here" in result.stdout
    assert len(result.stdout) < 8192 + 200


def test_result_files_come_back_parsed(backend: Sandbox, repo: Path, tmp_path: Path) -> None:
    program = """
        import json, os, pathlib
        out = pathlib.Path(os.environ["TORCHPORT_RT_OUT"])
        (out / "metrics.json").write_text(json.dumps({"schema": 1, "native_calls": 5}))
        (out / "probes.json").write_text(json.dumps({"loss": [2.0, 1.5]}))
        (out / "extra.txt").write_text("kept")
        print(os.environ["TORCHPORT_TARGET"], os.environ.get("TORCHPORT_CHIP"))
    """
    artifacts = tmp_path / "artifacts"
    run = spec(python(program), repo, artifacts_dir=artifacts, chip="v5e")
    result = backend.run(run)
    assert result.stdout.strip() == "cpu v5e", result.stderr
    assert result.runtime_metrics == {"schema": 1, "native_calls": 5}
    assert result.probes == {"loss": [2.0, 1.5]}
    assert result.artifacts_dir == artifacts
    assert json.loads((artifacts / "probes.json").read_text()) == {"loss": [2.0, 1.5]}
    assert (artifacts / "extra.txt").read_text() == "kept"


@pytest.mark.slow
def test_python_inside_is_the_one_with_torch(backend: Sandbox, repo: Path) -> None:
    program = "import torch, numpy; print(torch.__version__.split('+')[0], numpy.__version__)"
    result = backend.run(spec(["python", "-c", program], repo))
    from importlib import metadata

    expected = f"{metadata.version('torch').split('+')[0]} {metadata.version('numpy')}"
    assert result.stdout.strip() == expected, result.stderr


def test_a_repositorys_pytest_suite_can_run_inside(backend: Sandbox, repo: Path) -> None:
    """Run commands are often the repo's own tests: `python -m pytest` works in every backend."""
    (repo / "test_small.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    result = backend.run(spec(["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"], repo))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
