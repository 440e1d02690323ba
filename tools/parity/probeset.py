"""Probe files (`probes.json` + `probes.npz`, written by `sandbox/runtime/probes.py`) as data.

A `ProbeSet` maps probe names to their records in call order. Runs under torchrun write one
file per rank; their probes are named `rank<N>/<probe>`. Several commands are merged with
`cmd<i>/` prefixes. The same format is used for the reference cache and golden folders.
"""

import hashlib
import hmac
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agent.errors import BadInputError

_RANKED = re.compile(r"^probes\.(\d+)\.json$")


@dataclass(frozen=True)
class Record:
    """One recorded value: a numeric array (0-d for scalars), a string, or a summary."""

    dtype: str
    shape: tuple[int, ...]
    array: np.ndarray | None = None
    text: str | None = None
    summary: dict[str, float] | None = None


@dataclass
class Probe:
    """All records of one probe name, in the order the program produced them."""

    name: str
    kind: str
    records: list[Record] = field(default_factory=list)


@dataclass
class ProbeSet:
    """The probes of one run (or of several commands or ranks, prefixed)."""

    probes: dict[str, Probe] = field(default_factory=dict)
    runtimes: list[str] = field(default_factory=list)
    autocast: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """Why a file could not be trusted (unsigned, digest mismatch, tensor file altered)."""

    def __len__(self) -> int:
        return len(self.probes)

    @classmethod
    def from_folder(cls, folder: Path | None, *, key: bytes | None = None) -> "ProbeSet":
        """Read the probe files a run left in `folder` (empty set when there are none)."""
        result = cls()
        if folder is None or not folder.is_dir():
            return result
        ranked = sorted(
            (int(m.group(1)), path) for path in folder.iterdir() if (m := _RANKED.match(path.name))
        )
        files = [(f"rank{rank}/", path) for rank, path in ranked]
        if not files and (folder / "probes.json").is_file():
            files = [("", folder / "probes.json")]
        for prefix, path in files:
            result.absorb(_read_file(path, key), prefix)
        return result

    def absorb(self, other: "ProbeSet", prefix: str = "") -> None:
        """Add `other`'s probes under `prefix`."""
        for name, probe in other.probes.items():
            self.probes[prefix + name] = Probe(prefix + name, probe.kind, list(probe.records))
        self.runtimes.extend(r for r in other.runtimes if r not in self.runtimes)
        for region, count in other.autocast.items():
            self.autocast[region] = self.autocast.get(region, 0) + count
        self.problems.extend(
            f"{prefix}{problem}" if prefix else problem for problem in other.problems
        )

    def save(self, folder: Path, stem: str) -> None:
        """Write `<stem>.json` and `<stem>.npz` (the runtime's format) into `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        probes: dict[str, Any] = {}
        for name, probe in self.probes.items():
            records = []
            for record in probe.records:
                entry: dict[str, Any] = {"dtype": record.dtype, "shape": list(record.shape)}
                if record.text is not None:
                    entry["value"] = record.text
                elif record.summary is not None:
                    entry["summary"] = record.summary
                elif record.array is not None and record.array.ndim == 0:
                    entry["value"] = record.array.item()
                elif record.array is not None:
                    entry["tensor"] = f"t{len(arrays):06d}"
                    arrays[entry["tensor"]] = record.array
                records.append(entry)
            probes[name] = {"kind": probe.kind, "records": records}
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        (folder / f"{stem}.npz").write_bytes(buffer.getvalue())
        doc = {
            "schema": 1,
            "runtimes": self.runtimes,
            "autocast": self.autocast,
            "tensor_file": f"{stem}.npz",
            "tensor_sha256": hashlib.sha256(buffer.getvalue()).hexdigest(),
            "problems": self.problems,
            "probes": probes,
        }
        (folder / f"{stem}.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, stem: str) -> "ProbeSet":
        """Read what `save` wrote."""
        path = folder / f"{stem}.json"
        if not path.is_file():
            raise BadInputError(f"{path} is missing", hint="record golden probes again")
        return _read_file(path, None, saved=True)


def _read_file(path: Path, key: bytes | None, *, saved: bool = False) -> ProbeSet:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return ProbeSet(problems=[f"{path.name} is unreadable: {exc}"])
    problems = [] if saved else _integrity_problems(path, doc, key)
    npz_path = path.with_name(str(doc.get("tensor_file") or path.with_suffix(".npz").name))
    arrays: dict[str, np.ndarray] = {}
    if npz_path.is_file():
        with np.load(npz_path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    probes = {
        name: Probe(name, entry.get("kind", "?"), [_record(r, arrays) for r in entry["records"]])
        for name, entry in (doc.get("probes") or {}).items()
    }
    runtimes = doc.get("runtimes") or ([doc["runtime"]] if doc.get("runtime") else [])
    return ProbeSet(probes, list(runtimes), dict(doc.get("autocast") or {}), problems)


def _integrity_problems(path: Path, doc: dict[str, Any], key: bytes | None) -> list[str]:
    problems = []
    npz_path = path.with_name(str(doc.get("tensor_file") or ""))
    expected_npz = doc.get("tensor_sha256")
    if npz_path.is_file() and expected_npz:
        actual = hashlib.sha256(npz_path.read_bytes()).hexdigest()
        if actual != expected_npz:
            problems.append(f"{npz_path.name} was changed after the runtime wrote it")
    if key is not None:
        body = json.dumps({k: v for k, v in doc.items() if k != "digest"}, sort_keys=True)
        expected = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, str(doc.get("digest") or "")):
            problems.append(f"{path.name} was not written by the torchport runtime (bad digest)")
    return problems


def _record(entry: dict[str, Any], arrays: dict[str, np.ndarray]) -> Record:
    dtype = str(entry.get("dtype", "?"))
    shape = tuple(int(n) for n in entry.get("shape") or ())
    if "tensor" in entry:
        return Record(dtype, shape, array=arrays.get(entry["tensor"]))
    if "summary" in entry:
        return Record(dtype, shape, summary={k: float(v) for k, v in entry["summary"].items()})
    value = entry.get("value")
    if isinstance(value, str):
        return Record(dtype, shape, text=value)
    return Record(dtype, shape, array=np.asarray(value))
