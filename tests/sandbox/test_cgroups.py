"""Per-run cgroups: detection on v1 and v2 layouts, limits and clean-up on the real kernel."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.cgroups import Cgroup, CgroupLimits, cgroup_problem, create_cgroup


def _v2_tree(tmp_path: Path, delegated: str) -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    parent = root / "user.slice" / "run-1"
    parent.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (parent / "cgroup.subtree_control").write_text(delegated)
    proc_self = tmp_path / "proc-self-cgroup"
    proc_self.write_text("0::/user.slice/run-1\n")
    return root, proc_self


def test_v2_needs_memory_and_pids_delegated(tmp_path: Path) -> None:
    root, proc_self = _v2_tree(tmp_path, "cpu\n")
    problem = cgroup_problem(root, proc_self)
    assert problem is not None
    assert "memory, pids not delegated" in problem
    root, proc_self = _v2_tree(tmp_path / "b", "cpu memory pids\n")
    assert cgroup_problem(root, proc_self) is None


def test_no_hierarchy_is_named(tmp_path: Path) -> None:
    assert "no cgroup" in str(cgroup_problem(tmp_path, tmp_path / "none"))


def test_oom_kills_are_read_from_either_version(tmp_path: Path) -> None:
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    assert Cgroup(1, [v1]).oom_kills() == 2
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    assert Cgroup(2, [v2]).oom_kills() == 1


@pytest.mark.skipif(cgroup_problem() is not None, reason=f"{cgroup_problem()}")
def test_a_real_cgroup_limits_pids_and_is_removed_with_its_processes() -> None:
    cgroup = create_cgroup("test-" + os.urandom(4).hex(), CgroupLimits(256, 8, 1.0))
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        for procs in cgroup.procs_files:
            procs.write_text(str(sleeper.pid))
        assert cgroup.members() == [sleeper.pid]
        forks = (
            "import os, time\nn = 0\n"
            "try:\n    while n < 100:\n        os.fork() or (time.sleep(2), os._exit(0)); n += 1\n"
            "except OSError: pass\nprint(n)"
        )
        code = f"import os\nfor p in {[str(p) for p in cgroup.procs_files]!r}:\n"
        code += "    open(p, 'w').write(str(os.getpid()))\n" + forks
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert int(done.stdout) < 8
    finally:
        cgroup.remove()
    assert sleeper.wait(timeout=10) == -9
    assert not any(folder.exists() for folder in cgroup.folders)
