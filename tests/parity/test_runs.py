"""What `run_candidate` asks of the sandbox: runtime, probe switches, and the GPU profile whose
random layout the emulated device follows."""

from pathlib import Path

from sandbox.local_sandbox import LocalSandbox
from sandbox.types import RunResult, RunSpec
from tools.parity.runs import run_candidate, run_program
from tools.parity.spec import ParitySpec


class RecordingSandbox:
    """A sandbox that runs nothing and keeps every RunSpec it was given."""

    name = "recording"

    def __init__(self) -> None:
        self.specs: list[RunSpec] = []

    def run(self, spec: RunSpec) -> RunResult:
        self.specs.append(spec)
        return RunResult(exit_code=0, stdout="", stderr="", duration_s=0.0)


def test_the_candidate_draws_for_the_references_gpu(tmp_path: Path) -> None:
    sandbox = RecordingSandbox()
    spec = ParitySpec(print_patterns=["loss (\\S+)"], gpu_profile="H100")
    run_candidate(tmp_path, "python train.py", sandbox=sandbox, spec=spec, target="tpu")
    (run,) = sandbox.specs
    assert run.runtime == "tpu"
    assert run.env["TORCHPORT_RT_RNG_GPU"] == "H100"
    assert run.env["TORCHPORT_RT_PROBE_PATTERNS"] == '["loss (\\\\S+)"]'


def test_without_a_gpu_profile_the_device_keeps_its_default(tmp_path: Path) -> None:
    sandbox = RecordingSandbox()
    run_candidate(tmp_path, "python train.py", sandbox=sandbox, spec=ParitySpec(), target="tpu")
    assert "TORCHPORT_RT_RNG_GPU" not in sandbox.specs[0].env


def test_commands_run_as_a_pipeline_on_one_copy(tmp_path: Path) -> None:
    """The second command finds what the first wrote; the caller's tree stays as it was."""
    (tmp_path / "prepare.py").write_text("open('checkpoint.txt', 'w').write('7')\n")
    (tmp_path / "use.py").write_text("print('value', open('checkpoint.txt').read())\n")
    run = run_program(
        LocalSandbox(),
        tmp_path,
        [["python", "prepare.py"], ["python", "use.py"]],
        ParitySpec(print_patterns=["value (\\S+)"]),
        runtime="cpu",
    )
    assert run.exit_codes == [0, 0], run.results[-1].stderr
    assert run.results[1].stdout == "value 7\n"
    assert not (tmp_path / "checkpoint.txt").exists()
