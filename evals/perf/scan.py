"""Scan throughput: lines per second over a generated corpus, one process vs all cores.

    python -m evals.perf.scan [--lines 100000] [--jobs N]

The corpus mixes CUDA-first training code (the bundled example and a module touching most rule
families), plain Python without CUDA, and CUDA C++ kernels, in the proportions of a small
research repository. It is written to a temporary folder and removed afterwards.
"""

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

from agent.settings import Target
from tools.scanner import scan_path
from tools.scanner.pool import cores

ROOT = Path(__file__).resolve().parents[2]
CUDA_FIRST = [
    ROOT / "evals" / "suite" / "amp_classifier" / "train.py",
    ROOT / "tests" / "codemods" / "data" / "kitchen_sink.py.txt",
]
PLAIN = '''"""Utilities {index}: configuration, logging and bookkeeping without any device code."""

import dataclasses
import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)


@dataclasses.dataclass
class Record{index}:
    name: str
    values: list[float]

    def mean(self) -> float:
        return sum(self.values) / max(1, len(self.values))

    def to_json(self) -> str:
        return json.dumps({{"name": self.name, "mean": self.mean()}})


def read_records_{index}(folder: Path) -> list[Record{index}]:
    records = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        records.append(Record{index}(data["name"], [float(v) for v in data["values"]]))
        log.info("read %s", path)
    return records
'''
KERNEL = """#include <cuda_runtime.h>

__global__ void scale_{index}(float* x, float s, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}}
"""


def write_corpus(folder: Path, lines: int, seed: int = 0) -> int:
    """Files totalling at least `lines` lines: 45% CUDA-first, 50% plain Python, 5% .cu."""
    chooser = random.Random(seed)
    sources = [path.read_text(encoding="utf-8") for path in CUDA_FIRST]
    written = index = 0
    while written < lines:
        kind = chooser.random()
        package = folder / f"package_{index % 20:02d}"
        package.mkdir(parents=True, exist_ok=True)
        if kind < 0.45:
            text = chooser.choice(sources).replace("Classifier", f"Classifier{index}")
            path = package / f"train_{index}.py"
        elif kind < 0.95:
            text = PLAIN.format(index=index)
            path = package / f"utils_{index}.py"
        else:
            text = KERNEL.format(index=index)
            path = package / f"kernel_{index}.cu"
        path.write_text(text, encoding="utf-8")
        written += text.count("\n")
        index += 1
    return written


def measure(folder: Path, jobs: int) -> tuple[float, float, int, int]:
    """Wall seconds, this process's CPU seconds, lines scanned and findings of one scan."""
    started, cpu = time.perf_counter(), time.process_time()
    inventory = scan_path(folder, target=Target.TPU, jobs=jobs)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    return elapsed, cpu, inventory.summary["lines_scanned"], len(inventory.findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000, help="corpus size in lines")
    parser.add_argument("--jobs", type=int, default=cores(), help="worker processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="torchport-scan-bench-") as scratch:
        folder = Path(scratch)
        lines = write_corpus(folder, args.lines)
        files = sum(1 for _ in folder.rglob("*.*"))
        print(f"corpus: {lines} lines in {files} files")
        load = os.getloadavg()[0]
        one_s, one_cpu, scanned, found = measure(folder, jobs=1)
        all_s, _, scanned_all, found_all = measure(folder, jobs=args.jobs)
        assert (scanned, found) == (scanned_all, found_all), "pooled scan differs"
        print(f"findings: {found}; load average before: {load:.1f} on {cores()} cores")
        print(f"1 process:   {one_s:7.2f} s  {scanned / one_s:10.0f} lines/s (wall)")
        print(f"             {one_cpu:7.2f} s  {scanned / one_cpu:10.0f} lines per CPU-second")
        print(f"{args.jobs} processes: {all_s:7.2f} s  {scanned / all_s:10.0f} lines/s (wall)")
        print(f"speedup with {args.jobs} processes: {one_s / all_s:.2f}x")


if __name__ == "__main__":
    main()
