"""The reference cache key covers every runtime file a reference run executes, so a change to
any of them (the shared RNG, the probe recorder, ...) invalidates cached references."""

import json
import subprocess
import sys
from pathlib import Path

from tests.reference.helpers import base_env
from tools.parity.reference import runtime_sources

LOADED = """
import json, sys
import torch
try:
    import triton  # its launch counter is installed on import
except ImportError:
    pass
print(json.dumps(sorted(
    module.__file__ for name, module in list(sys.modules.items())
    if name.startswith("sandbox.runtime") and getattr(module, "__file__", None)
)))
"""


def test_every_runtime_module_of_a_reference_run_is_in_the_cache_key(tmp_path: Path) -> None:
    env = base_env(tmp_path / "out", {"TORCHPORT_TARGET": "reference"})
    done = subprocess.run(
        [sys.executable, "-c", LOADED], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    loaded = {Path(path).resolve() for path in json.loads(done.stdout.splitlines()[-1])}
    assert any(path.parent.name == "rng" for path in loaded)
    assert loaded - {path.resolve() for path in runtime_sources()} == set()
