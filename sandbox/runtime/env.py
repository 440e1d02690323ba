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

# Switches of the emulated tpu/neuron runtime (read once at activation).
STRICT = "TORCHPORT_RT_STRICT"
"""`1`: the first op without a native kernel raises instead of running on the CPU fallback."""
FALLBACK = "TORCHPORT_RT_FALLBACK"
"""`allow` (default), `warn` (log each new fallback op once) or `error` (same as STRICT=1)."""
FLOAT64 = "TORCHPORT_RT_FLOAT64"
"""`error` (default: float64 on the device raises), `warn` or `allow`; overrides the profile."""
MEMORY = "TORCHPORT_RT_MEMORY"
"""Device memory budget overriding the chip's HBM, e.g. `64MiB`, `2GiB` or a byte count."""
THREADS = "TORCHPORT_RT_THREADS"
"""CPU threads for the emulator's BLAS and PyTorch's intra-op pool (default 1; 0 leaves both)."""
RNG_GPU = "TORCHPORT_RT_RNG_GPU"
"""GPU profile (default A100, as the reference) whose Philox layout the device's draws follow."""
