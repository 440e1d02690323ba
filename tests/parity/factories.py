"""Small real values for the pure parity functions: probes, references and runs."""

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from sandbox.types import RunResult
from tools.parity.model import Reference
from tools.parity.probeset import Probe, ProbeSet, Record
from tools.parity.runs import ProgramRun


def probe(name: str, *values: object, kind: str = "save", dtype: str = "float32") -> Probe:
    """A probe with one record per value (numbers, lists or strings)."""
    records = []
    for value in values:
        if isinstance(value, str):
            records.append(Record("str", (), text=value))
        else:
            array = np.asarray(value, dtype=np.float64)
            records.append(Record(dtype, array.shape, array=array))
    return Probe(name, kind, records)


def probes(*items: Probe, autocast: dict[str, int] | None = None) -> ProbeSet:
    """A probe set of `items`."""
    return ProbeSet({item.name: item for item in items}, ["cpu"], dict(autocast or {}))


def reference(base: ProbeSet, **fields: object) -> Reference:
    """A CPU reference of one command that exited 0 and ran 100 CUDA ops."""
    values: dict[str, object] = {
        "source": "cpu",
        "commands": [["python", "train.py"]],
        "base": base,
        "exit_codes": [0],
        "device_calls": 100,
    }
    values.update(fields)
    return Reference(**values)  # type: ignore[arg-type]


def run(
    found: ProbeSet,
    *,
    exit_codes: Sequence[int] = (0,),
    runtime: str = "cpu",
    device_calls: int | None = None,
) -> ProgramRun:
    """A finished program run with `found` probes (and device metrics when given)."""
    metrics = None if device_calls is None else {"native_calls": device_calls, "fallback_calls": 0}
    results = [RunResult(code, "", "", 1.0, runtime_metrics=metrics) for code in exit_codes]
    return ProgramRun(runtime=runtime, results=results, probes=found)


def tree(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path → text) under `root`."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
