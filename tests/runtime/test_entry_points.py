"""The two ways a program gets the emulated device without changing its code: the module runner
(`python -m sandbox.runtime --target tpu script.py args`) and the site hook (TORCHPORT_TARGET at
interpreter start, which also reaches child interpreters)."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtime.harness import REPO, run_script, runtime_env

PROBE = """
import sys
import torch
print(__name__, sys.argv[1:], torch.accelerator.current_accelerator(), torch.randn(2, device="tpu").device)
"""


@pytest.mark.slow
def test_module_runner_runs_the_script_as_main_with_its_arguments(tmp_path: Path) -> None:
    done = run_script(PROBE.replace("import sys", "import sys\nsys.argv.append('x')"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["__main__", "['x']", "tpu", "tpu:0"]


@pytest.mark.slow
def test_site_hook_activates_plain_python_and_its_children(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(
        "import subprocess, sys, torch\n"
        "print(torch.ones(1, device='tpu').device)\n"
        "child = 'import torch; print(torch.ones(1, device=\"tpu\").device)'\n"
        "print(subprocess.run([sys.executable, '-c', child], capture_output=True, text=True).stdout.strip())\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script), "arg"],
        cwd=REPO,
        env=runtime_env("tpu"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tpu:0", "tpu:0"]


@pytest.mark.slow
def test_module_runner_runs_a_module(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "train.py").write_text(PROBE, encoding="utf-8")
    env = runtime_env(None)
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{tmp_path}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sandbox.runtime",
            "--target",
            "tpu",
            "-m",
            "pkg.train",
            "--lr",
            "1",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["__main__", "['--lr',", "'1']", "tpu", "tpu:0"]


@pytest.mark.slow
@pytest.mark.parametrize("module", [["-m", "pytest"], ["-mpytest"]])
def test_module_runner_passes_the_modules_own_options_through(
    tmp_path: Path, module: list[str]
) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_on_cuda.py").write_text(
        "import torch\n\ndef test_cuda():\n    assert torch.ones(1, device='cuda').is_cuda\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "sandbox.runtime", "--target", "reference"]
    done = subprocess.run(
        [*command, *module, "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        env=runtime_env(None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_runtime_options_before_the_program_are_still_checked() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sandbox.runtime", "--target", "tpu", "-q", "train.py"],
        cwd=REPO,
        env=runtime_env(None),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unrecognized arguments: -q" in done.stderr
