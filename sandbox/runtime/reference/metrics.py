"""The reference runtime's `metrics.json` (schema of helpers' metrics contract, target
`reference`), written when the process ends, with a `reference` section: profile, what could
not be emulated (with file:line), autocast regions and the switches the run used."""

import atexit
import json
import os
from pathlib import Path
from typing import Any

import torch

from sandbox.runtime.reference.state import ReferenceState

SCHEMA = 1


def metrics_document(state: ReferenceState) -> dict[str, Any]:
    """The metrics of this process so far."""
    state.tags.sweep()
    memory = state.tags.memory
    calls = state.cuda_calls
    return {
        "schema": SCHEMA,
        "target": "reference",
        "chip": state.profile.key,
        "ops": {name: {"native": count, "fallback": 0} for name, count in state.op_counts.items()},
        "native_calls": calls,
        "fallback_calls": 0,
        "native_share": 1.0 if calls else 0.0,
        "ops_not_lowered": [],
        "memory": {
            "peak_bytes": max(memory.peak.values(), default=0),
            "current_bytes": sum(memory.current.values()),
            "budget_bytes": state.profile.total_memory,
        },
        "transfers": {"host_to_device": state.op_counts.get("transfer", 0)},
        "host_syncs": 0,
        "float64_events": [],
        "warnings": list(state.warnings),
        "reference": {
            "profile": state.profile.key,
            "gpu_name": state.profile.name,
            "device_count": state.device_count,
            "unavailable": list(state.unavailable),
            "autocast_regions": dict(state.autocast_regions),
            "precision": state.options.precision,
            "perturb": state.options.perturb,
            "salt": state.options.salt,
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
        },
    }


def metrics_paths(results_dir: Path, environ: dict[str, str] | None = None) -> list[Path]:
    """`metrics.json`, or `metrics.<rank>.json` (+ `metrics.json` for rank 0) under torchrun."""
    env = os.environ if environ is None else environ
    rank = env.get("RANK")
    if rank is None:
        return [results_dir / "metrics.json"]
    paths = [results_dir / f"metrics.{rank}.json"]
    if rank == "0":
        paths.append(results_dir / "metrics.json")
    return paths


def write_metrics_at_exit(state: ReferenceState, results_dir: str) -> None:
    """Write the metrics file(s) when the interpreter exits (also after an uncaught error)."""

    def write() -> None:
        folder = Path(results_dir)
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(metrics_document(state), indent=1, sort_keys=True)
        for path in metrics_paths(folder):
            if path.exists() and not state.cuda_calls:
                continue  # e.g. the torchrun launcher: never overwrite a worker's figures
            path.write_text(text, encoding="utf-8")

    atexit.register(write)
