"""What an emulated-device run did: op calls served natively or by the CPU fallback, device memory,
host<->device transfers, host syncs, float64 encounters and runtime warnings.

`RuntimeMetrics.snapshot()` is the `metrics.json` contract (schema 1, see README.md);
`render_report()` prints it in the style of torch_xla's metrics report."""

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class MemoryFigures:
    """Device memory in bytes: the high-water mark, what is held now, and the budget."""

    peak_bytes: int
    current_bytes: int
    budget_bytes: int


class RuntimeMetrics:
    """Thread-safe counters of one process (kernels run on the main and the autograd thread)."""

    def __init__(self, target: str, chip: str, memory: Callable[[], MemoryFigures]) -> None:
        self.target = target
        self.chip = chip
        self._memory = memory
        self._lock = threading.Lock()
        self._native: dict[str, int] = {}
        self._fallback: dict[str, int] = {}
        self._transfers = {"host_to_device": 0, "device_to_host": 0}
        self._transfer_bytes = {"host_to_device": 0, "device_to_host": 0}
        self._host_syncs = 0
        self._float64_events: list[str] = []
        self._warnings: list[str] = []

    def count_native(self, op: str) -> None:
        """One call of `op` served by a native kernel."""
        with self._lock:
            self._native[op] = self._native.get(op, 0) + 1

    def count_fallback(self, op: str) -> bool:
        """One call of `op` run by the CPU fallback; True the first time `op` falls back."""
        with self._lock:
            calls = self._fallback.get(op, 0)
            self._fallback[op] = calls + 1
            return calls == 0

    def count_transfer(self, direction: str, nbytes: int) -> None:
        """One copy `host_to_device` or `device_to_host` of `nbytes`."""
        with self._lock:
            self._transfers[direction] += 1
            self._transfer_bytes[direction] += nbytes

    def count_host_sync(self) -> None:
        """The host waited for a device value (.item(), .cpu(), printing, bool(t), ...)."""
        with self._lock:
            self._host_syncs += 1

    def note_float64(self, op: str) -> bool:
        """`op` met float64 under policy warn/allow; True the first time for that op."""
        with self._lock:
            if op in self._float64_events:
                return False
            self._float64_events.append(op)
            return True

    def note_warning(self, message: str) -> bool:
        """A runtime warning; True the first time this exact message is seen."""
        with self._lock:
            if message in self._warnings:
                return False
            self._warnings.append(message)
            return True

    def native_calls(self) -> int:
        """Op calls served natively so far."""
        with self._lock:
            return sum(self._native.values())

    def fallback_ops(self) -> dict[str, int]:
        """Calls per fallback op so far."""
        with self._lock:
            return dict(self._fallback)

    def snapshot(self) -> dict[str, Any]:
        """The metrics.json document (schema 1)."""
        with self._lock:
            names = sorted(set(self._native) | set(self._fallback))
            ops = {
                name: {"native": self._native.get(name, 0), "fallback": self._fallback.get(name, 0)}
                for name in names
            }
            native = sum(self._native.values())
            fallback = sum(self._fallback.values())
            memory = self._memory()
            return {
                "schema": SCHEMA_VERSION,
                "target": self.target,
                "chip": self.chip,
                "ops": ops,
                "native_calls": native,
                "fallback_calls": fallback,
                "native_share": native / (native + fallback) if native + fallback else 0.0,
                "ops_not_lowered": sorted(self._fallback),
                "memory": {
                    "peak_bytes": memory.peak_bytes,
                    "current_bytes": memory.current_bytes,
                    "budget_bytes": memory.budget_bytes,
                },
                "transfers": {
                    "host_to_device": self._transfers["host_to_device"],
                    "device_to_host": self._transfers["device_to_host"],
                    "bytes_host_to_device": self._transfer_bytes["host_to_device"],
                    "bytes_device_to_host": self._transfer_bytes["device_to_host"],
                },
                "host_syncs": self._host_syncs,
                "float64_events": list(self._float64_events),
                "warnings": list(self._warnings),
            }


def render_report(doc: dict[str, Any]) -> str:
    """A metrics document as text, torch_xla style: `Metric:`/`Counter:` blocks, then the ops that
    ran on the CPU fallback as `aten::` counters and an "Op(s) not lowered" line."""
    memory, transfers = doc["memory"], doc["transfers"]
    lines = [
        f"Metric: DeviceMemory ({doc['target']} {doc['chip']})",
        f"  Peak: {memory['peak_bytes']} bytes",
        f"  Current: {memory['current_bytes']} bytes",
        f"  Budget: {memory['budget_bytes']} bytes",
    ]
    counters = {
        "NativeOpCalls": doc["native_calls"],
        "FallbackOpCalls": doc["fallback_calls"],
        "HostSyncs": doc["host_syncs"],
        "TransferToDevice": transfers["host_to_device"],
        "TransferFromDevice": transfers["device_to_host"],
    }
    for name, value in counters.items():
        lines += [f"Counter: {name}", f"  Value: {value}"]
    for name, calls in doc["ops"].items():
        if calls["native"]:
            lines += [
                f"Counter: {doc['target']}::{name.removeprefix('aten::')}",
                f"  Value: {calls['native']}",
            ]
    for name, calls in doc["ops"].items():
        if calls["fallback"]:
            lines += [f"Counter: {name}", f"  Value: {calls['fallback']}"]
    lines.append(f"Native share of op calls: {doc['native_share']:.1%}")
    if doc["ops_not_lowered"]:
        lines.append("Op(s) not lowered: " + ", ".join(doc["ops_not_lowered"]))
    for op in doc["float64_events"]:
        lines.append(f"float64 met in: {op}")
    lines.extend(f"Warning: {message}" for message in doc["warnings"])
    return "\n".join(lines)


def metrics_file_names(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """`metrics.json`, or under torchrun `metrics.<rank>.json` (plus `metrics.json` on rank 0)."""
    rank = environ.get("RANK")
    if rank is None or not rank.isdigit():
        return ["metrics.json"]
    names = [f"metrics.{rank}.json"]
    if rank == "0":
        names.append("metrics.json")
    return names


def write_metrics(metrics: RuntimeMetrics, results_dir: str) -> list[Path]:
    """Write the snapshot into `results_dir` (created if missing); returns the files written.

    A process that never used the device (a torchrun launcher, a DataLoader worker) does not
    overwrite a file another process of the run already wrote."""
    folder = Path(results_dir)
    folder.mkdir(parents=True, exist_ok=True)
    doc = metrics.snapshot()
    idle = doc["native_calls"] + doc["fallback_calls"] == 0 and doc["memory"]["peak_bytes"] == 0
    text = json.dumps(doc, indent=2)
    written = []
    for name in metrics_file_names(os.environ):
        path = folder / name
        if idle and path.exists():
            continue
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        written.append(path)
    return written
