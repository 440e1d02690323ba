"""`torchport.probe(name, value)`: record a named value for torchport's parity check.

Importable inside torchport's sandbox (this folder is on the path there). Outside torchport,
or when probes are off, `probe` does nothing, so a program may keep the calls; to run it
elsewhere without torchport, copy this file next to it.
"""

import sys
from typing import Any


def probe(name: str, value: Any) -> None:
    """Record `value` (a tensor, array, number or string) under `probe:<name>`."""
    recorder = sys.modules.get("sandbox.runtime.probes")
    if recorder is not None:
        recorder.record_probe(name, value)
