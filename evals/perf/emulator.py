"""Benchmark of the emulated device: training-step time on `tpu` vs CPU eager, measured in one
process for three tiny-GPT sizes, and the share of op calls served natively.

    python evals/perf/emulator.py [--target tpu] [--rounds 5] [--steps 3]

Runs itself under the runtime (`python -m sandbox.runtime`) when it is not active yet. CPU and
device steps alternate in rounds so that load from other processes hits both alike; the ratio per
size is the median over rounds. Targets: <= 1.5x at ~2M parameters and >= 90% native op calls on
the smallest model."""

import argparse
import copy
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

SIZES = {
    "30k": {"vocab": 64, "context": 16, "width": 32, "heads": 4, "blocks": 2, "batch": 4},
    "400k": {"vocab": 256, "context": 64, "width": 128, "heads": 4, "blocks": 2, "batch": 8},
    "2M": {"vocab": 1024, "context": 128, "width": 256, "heads": 4, "blocks": 2, "batch": 8},
}
TARGET_RATIO_2M = 1.5
TARGET_NATIVE_SHARE = 0.90


@dataclass(frozen=True)
class SizeResult:
    """What one model size measured."""

    name: str
    parameters: int
    cpu_ms: float
    ratio: float
    cpu_time_ratio: float
    native_share: float
    fallback_ops: dict[str, int]

    @property
    def device_ms(self) -> float:
        """Device step time (median ratio times the median CPU step)."""
        return self.cpu_ms * self.ratio


def _stepper(
    model: "torch.nn.Module", batches: list[tuple["torch.Tensor", "torch.Tensor"]], device: str
) -> Callable[[int], float]:
    """A function running training step `index` (AdamW, the default foreach path) on `device`."""
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    moved = [(x.to(device), y.to(device)) for x, y in batches]

    def step(index: int) -> float:
        tokens, targets = moved[index % len(moved)]
        loss = model(tokens, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return float(loss.item())

    return step


def _time_steps(step: Callable[[int], float], count: int) -> tuple[float, float]:
    """Milliseconds per step: wall clock, and CPU time of this process (all its threads)."""
    start, start_cpu = time.perf_counter(), time.process_time()
    for index in range(count):
        step(index)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return wall / count * 1000.0, cpu / count * 1000.0


def measure(name: str, target: str, rounds: int, steps: int) -> SizeResult:
    """Time `steps` training steps per round on CPU and on the device, `rounds` times."""
    import torch

    from evals.perf.tiny_gpt import GptShape, TinyGpt, make_batches, parameter_count

    shape = GptShape(**SIZES[name])
    torch.manual_seed(0)
    cpu_model = TinyGpt(shape)
    device_model = copy.deepcopy(cpu_model).to(target)
    batches = make_batches(shape, 4)
    cpu_step = _stepper(cpu_model, batches, "cpu")
    device_step = _stepper(device_model, batches, target)
    cpu_step(0)
    device_step(0)
    metrics = torch.get_device_module(target)
    before = metrics.metrics()
    device_times, cpu_times = [], []
    for _ in range(rounds):
        cpu_times.append(_time_steps(cpu_step, steps))
        device_times.append(_time_steps(device_step, steps))
    wall_ratios = [d[0] / c[0] for d, c in zip(device_times, cpu_times, strict=True)]
    cpu_ratios = [d[1] / c[1] for d, c in zip(device_times, cpu_times, strict=True)]
    after = metrics.metrics()
    native = after["native_calls"] - before["native_calls"]
    fallback = after["fallback_calls"] - before["fallback_calls"]
    fallback_ops = {
        op: calls["fallback"] - before["ops"].get(op, {}).get("fallback", 0)
        for op, calls in after["ops"].items()
        if calls["fallback"] - before["ops"].get(op, {}).get("fallback", 0)
    }
    return SizeResult(
        name,
        parameter_count(cpu_model),
        statistics.median(wall for wall, _ in cpu_times),
        statistics.median(wall_ratios),
        statistics.median(cpu_ratios),
        native / (native + fallback),
        fallback_ops,
    )


def report(results: list[SizeResult]) -> str:
    """The result table and the verdict on the two targets."""
    lines = [
        f"{'size':>6} {'params':>9} {'cpu ms':>9} {'device ms':>10} {'ratio':>6} "
        f"{'cpu-time ratio':>15} {'native':>7}"
    ]
    for r in results:
        lines.append(
            f"{r.name:>6} {r.parameters:>9,} {r.cpu_ms:>9.2f} {r.device_ms:>10.2f} "
            f"{r.ratio:>5.2f}x {r.cpu_time_ratio:>14.2f}x {r.native_share:>6.1%}"
        )
        if r.fallback_ops:
            lines.append(f"{'':>6} fallback ops: {r.fallback_ops}")
    largest, smallest = results[-1], results[0]
    lines.append(
        f"target ratio <= {TARGET_RATIO_2M}x at the largest size run ({largest.name}): "
        f"{'met' if largest.ratio <= TARGET_RATIO_2M else 'NOT met'} ({largest.ratio:.2f}x)"
    )
    lines.append(
        f"target native share >= {TARGET_NATIVE_SHARE:.0%} "
        f"at the smallest size run ({smallest.name}): "
        f"{'met' if smallest.native_share >= TARGET_NATIVE_SHARE else 'NOT met'} "
        f"({smallest.native_share:.1%})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, re-run under the runtime when needed, measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="tpu", choices=("tpu", "neuron"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--sizes", nargs="*", default=list(SIZES), choices=list(SIZES))
    args = parser.parse_args(argv)
    if os.environ.get("TORCHPORT_RT_ACTIVE") != args.target:
        root = Path(__file__).resolve().parents[2]
        command = [sys.executable, "-m", "sandbox.runtime", "--target", args.target, __file__]
        command += sys.argv[1:] if argv is None else argv
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
        }
        return subprocess.call(command, env=env, cwd=root)
    results = [measure(name, args.target, args.rounds, args.steps) for name in args.sizes]
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
