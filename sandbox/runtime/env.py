"""The environment variables that switch the runtime on inside a sandboxed process.

The sandbox sets them; `sitecustomize` (on PYTHONPATH) and `python -m sandbox.runtime` read them.
"""

TARGET = "TORCHPORT_TARGET"
"""`tpu`, `neuron` (emulated device), `reference` (CUDA program on the CPU) or `cpu` (plain)."""
CHIP = "TORCHPORT_CHIP"
"""Chip profile: v4/v5e/v5p/v6e for tpu, trn1/trn2 for neuron, a GPU profile for reference."""
RESULTS_DIR = "TORCHPORT_RT_OUT"
"""Folder for result files (`metrics.json`, `probes.json`, ...); nothing is written when unset."""
ACTIVE = "TORCHPORT_RT_ACTIVE"
"""Set by the runtime once installed in a process, so child interpreters can tell."""

TARGETS = ("tpu", "neuron", "reference", "cpu")
