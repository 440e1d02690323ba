"""The sandboxed process's environment is built from scratch."""

from pathlib import Path

from sandbox.environment import SandboxPaths, sandbox_environment
from sandbox.types import RunSpec

PATHS = SandboxPaths(bin_path="/venv/bin:/usr/bin", runtime_root="/rt", out_dir="/out", home="/h")


def test_only_neutral_variables_the_spec_and_the_runtime_switches() -> None:
    spec = RunSpec(["python"], Path("/repo"), runtime="tpu", chip="v5e", env={"SEED": "3"})
    env = sandbox_environment(spec, PATHS)
    assert env["SEED"] == "3"
    assert env["TORCHPORT_TARGET"] == "tpu"
    assert env["TORCHPORT_CHIP"] == "v5e"
    assert env["TORCHPORT_RT_OUT"] == "/out"
    assert env["PYTHONPATH"] == "/rt:/rt/sandbox/runtime/site"
    assert env["HOME"] == env["TMPDIR"] == "/h"
    assert env["PATH"] == "/venv/bin:/usr/bin"
    assert not {"OPENAI_API_KEY", "GITHUB_TOKEN", "USER"} & set(env)


def test_cpu_runs_are_activated_too_so_probes_are_recorded() -> None:
    env = sandbox_environment(RunSpec(["python"], Path("/repo")), PATHS)
    assert env["TORCHPORT_TARGET"] == "cpu"
    assert "TORCHPORT_CHIP" not in env


def test_the_spec_cannot_override_the_runtime_switches() -> None:
    spec = RunSpec(
        ["python"],
        Path("/repo"),
        runtime="neuron",
        env={"TORCHPORT_TARGET": "cpu", "TORCHPORT_RT_OUT": "/elsewhere", "PYTHONPATH": "/mine"},
    )
    env = sandbox_environment(spec, PATHS)
    assert env["TORCHPORT_TARGET"] == "neuron"
    assert env["TORCHPORT_RT_OUT"] == "/out"
    assert env["PYTHONPATH"] == "/rt:/rt/sandbox/runtime/site:/mine"
