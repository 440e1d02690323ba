"""The probe recorder: what a program computed, recorded with no change to its code.

Installed for every target when `TORCHPORT_RT_OUT` is set. Imports neither torch nor NumPy: the
line scanning starts at once, the hooks on torch (`probe_hooks.py`) when the program imports it,
so a program without torch starts as fast as plain Python. Records, in call order:
- `backward`: the scalar of every `backward()` (the loss trajectory; GradScaler's scale removed),
- `save:<file>:<key>`: every tensor and number written by `torch.save` (state dicts flattened),
- `print:<pattern>`: the number each stdout/stderr line matching a pattern of
  `TORCHPORT_RT_PROBE_PATTERNS` (a JSON list of regexes with one group) captured,
- `probe:<name>`: values passed to `torchport.probe(name, value)` (module in `site/`).
At exit it writes `probes.json` and `probes.npz` (`probes.<RANK>.*` under torchrun; rank 0 also
writes the plain names). The format is described in `sandbox/runtime/README.md`.
"""

import atexit
import hashlib
import hmac
import io
import json
import os
import re
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from sandbox.runtime.import_hooks import when_imported

SCHEMA = 1
PATTERNS_ENV = "TORCHPORT_RT_PROBE_PATTERNS"
KEY_ENV = "TORCHPORT_RT_PROBE_KEY"
"""A per-run secret: the files carry an HMAC of their content under it (`digest`)."""
MAX_BYTES_ENV = "TORCHPORT_RT_PROBE_MAX_BYTES"
DEFAULT_MAX_BYTES = 256 << 20
"""Tensor bytes kept in full; past it, tensors are recorded as summary statistics only."""

_recorder: "Recorder | None" = None


class Recorder:
    """Probe records of one process, in the order they happened."""

    def __init__(self, patterns: list[str], max_bytes: int) -> None:
        self.patterns = [(pattern, re.compile(pattern)) for pattern in patterns]
        self.max_bytes = max_bytes
        self.kept_bytes = 0
        self.probes: dict[str, dict[str, Any]] = {}
        self.tensors: dict[str, Any] = {}
        """Kept tensors as NumPy arrays (keys `t000000`, ...)."""
        self.autocast: dict[str, int] = {}

    def add(self, name: str, kind: str, value: Any) -> None:
        """Append one record of `value` (tensor, array, number, bool or string) to `name`."""
        probe = self.probes.setdefault(name, {"kind": kind, "records": []})
        probe["records"].append(self._record(value))

    def _record(self, value: Any) -> dict[str, Any]:
        if isinstance(value, bool | int | float):
            kind = "bool" if isinstance(value, bool) else type(value).__name__
            return {"dtype": kind, "shape": [], "value": value}
        if _is_array(value):
            from sandbox.runtime.probe_hooks import tensor_record

            return tensor_record(self, value)
        return {"dtype": "str", "shape": [], "value": str(value)}

    def scan_line(self, line: str) -> None:
        """Record the group of every pattern that matches `line`."""
        for pattern, regex in self.patterns:
            match = regex.search(line)
            if match is None or not match.groups():
                continue
            text = match.group(1).strip().rstrip(",;:)]}").lstrip("([{")
            try:
                number: float | str = float(text)
            except ValueError:
                number = text
            self.add(f"print:{pattern}", "print", number)

    def document(self, key: bytes | None, tensor_file: str) -> tuple[dict[str, Any], bytes]:
        """The probes.json content (signed with `key` when given) and the npz bytes."""
        npz = _npz_bytes(self.tensors)
        doc: dict[str, Any] = {
            "schema": SCHEMA,
            "runtime": os.environ.get("TORCHPORT_RT_ACTIVE") or os.environ.get("TORCHPORT_TARGET"),
            "rank": _int_env("RANK"),
            "world_size": _int_env("WORLD_SIZE"),
            "tensor_file": tensor_file,
            "tensor_sha256": hashlib.sha256(npz).hexdigest(),
            "autocast": dict(sorted(self.autocast.items())),
            "probes": self.probes,
        }
        if key:
            doc["digest"] = sign(key, doc)
        return doc, npz


def sign(key: bytes, doc: dict[str, Any]) -> str:
    """HMAC-SHA256 of the document without its `digest` (the harness checks it)."""
    body = json.dumps({k: v for k, v in doc.items() if k != "digest"}, sort_keys=True)
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def _is_array(value: Any) -> bool:
    """A torch tensor or NumPy array (without importing either: a program that made one has)."""
    torch, numpy = sys.modules.get("torch"), sys.modules.get("numpy")
    return (torch is not None and isinstance(value, torch.Tensor)) or (
        numpy is not None and isinstance(value, numpy.ndarray)
    )


def _npz_bytes(tensors: dict[str, Any]) -> bytes:
    """The kept tensors as an `.npz` archive (an empty archive without NumPy when none)."""
    if tensors:
        from sandbox.runtime.probe_hooks import npz_bytes

        return npz_bytes(tensors)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w"):
        pass
    return buffer.getvalue()


def _int_env(name: str) -> int | None:
    raw = os.environ.get(name)
    return int(raw) if raw and raw.isdigit() else None


class LineScanner:
    """Wraps a text stream: writes go through unchanged, each complete line goes to `on_line`."""

    def __init__(self, stream: TextIO, on_line: Callable[[str], None]) -> None:
        self._stream = stream
        self._on_line = on_line
        self._partial = ""

    def write(self, text: str) -> int:
        """Write `text` to the wrapped stream and scan the lines it completes."""
        written = self._stream.write(text)
        self._partial += text
        if "\n" in text or "\r" in text:
            *lines, self._partial = re.split(r"[\r\n]", self._partial)
            for line in lines:
                if line:
                    self._on_line(line)
        if len(self._partial) > 1 << 16:
            self._partial = self._partial[-4096:]
        return written

    def finish(self) -> None:
        """Scan the last, unterminated line."""
        if self._partial:
            self._on_line(self._partial)
            self._partial = ""

    def flush(self) -> None:
        """Flush the wrapped stream."""
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def record_probe(name: str, value: Any) -> None:
    """`torchport.probe(name, value)`: record a named value (no-op when probes are off)."""
    if _recorder is not None:
        _recorder.add(f"probe:{name}", "probe", value)


def install_probes(results_dir: str) -> None:
    """Start recording in this process; the files are written to `results_dir` at exit."""
    global _recorder
    if _recorder is not None:
        return
    patterns = json.loads(os.environ.get(PATTERNS_ENV) or "[]")
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ValueError(f"{PATTERNS_ENV} must be a JSON list of regular expressions")
    max_bytes = int(os.environ.get(MAX_BYTES_ENV) or DEFAULT_MAX_BYTES)
    recorder = Recorder(patterns, max_bytes)
    _recorder = recorder
    key = (os.environ.get(KEY_ENV) or "").encode() or None
    when_imported("torch", lambda torch: _install_torch_hooks(recorder, torch))
    if recorder.patterns:
        sys.stdout = LineScanner(sys.stdout, recorder.scan_line)
        sys.stderr = LineScanner(sys.stderr, recorder.scan_line)
    site = str(Path(__file__).resolve().parent / "site")
    if site not in sys.path:
        sys.path.append(site)  # makes `import torchport` work for `torchport.probe`
    atexit.register(_write, recorder, Path(results_dir), key)


def _install_torch_hooks(recorder: Recorder, torch: ModuleType) -> None:
    """The hooks that need torch, once the program has imported it."""
    from sandbox.runtime.probe_hooks import install_torch_hooks

    install_torch_hooks(recorder)


def probe_paths(folder: Path) -> list[tuple[Path, Path]]:
    """(json, npz) paths this process writes: per rank under torchrun, rank 0 also plain."""
    rank = os.environ.get("RANK")
    plain = (folder / "probes.json", folder / "probes.npz")
    if rank is None:
        return [plain]
    ranked = (folder / f"probes.{rank}.json", folder / f"probes.{rank}.npz")
    return [ranked, plain] if rank == "0" else [ranked]


def _write(recorder: Recorder, folder: Path, key: bytes | None) -> None:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, LineScanner):
            stream.finish()
    folder.mkdir(parents=True, exist_ok=True)
    for json_path, npz_path in probe_paths(folder):
        if json_path.exists() and not recorder.probes:
            continue  # e.g. the torchrun launcher: never overwrite a worker's records
        doc, npz = recorder.document(key, npz_path.name)
        npz_path.write_bytes(npz)
        json_path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
