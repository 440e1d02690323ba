"""A Triton kernel launch counts as one CUDA op of the program, as on a GPU.

Triton's interpreter (`TRITON_INTERPRET=1`) copies each tensor argument through its storage to a
host tensor and back, around Python code per program instance; under the reference's mode those
copies and metadata queries would count as dozens of CUDA ops per launch, so a correct migration
that replaces the kernel with one PyTorch op would look like it left work on the CPU. A launch
with a CUDA tensor among its arguments counts once (`triton:<kernel>`), and what the interpreter
does inside it is not counted; a launch on CPU tensors only counts nothing, as before.
"""

import functools
from collections import Counter
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch

from sandbox.runtime.import_hooks import when_imported
from sandbox.runtime.reference.state import ReferenceState

INTERPRETER = "triton.runtime.interpreter"


def _tensors(values: Any, depth: int = 0) -> Iterator[torch.Tensor]:
    """Tensors among kernel arguments (inside tuples and tensor descriptors too)."""
    if depth > 4:
        return
    if isinstance(values, torch.Tensor):
        yield values
    elif isinstance(values, list | tuple):
        for value in values:
            yield from _tensors(value, depth + 1)
    elif isinstance(getattr(values, "base", None), torch.Tensor):  # a TensorDescriptor
        yield values.base


def count_launches(state: ReferenceState, executor: type) -> None:
    """Make each call of Triton's `GridExecutor` (one kernel launch) count as one CUDA op."""
    launch = executor.__call__

    @functools.wraps(launch)
    def counted_launch(self: Any, *args: Any, **kwargs: Any) -> Any:
        arguments = _tensors((args, tuple(kwargs.values())))
        on_device = any(state.tags.device_of(tensor) is not None for tensor in arguments)
        calls, counts = state.cuda_calls, Counter(state.op_counts)
        try:
            return launch(self, *args, **kwargs)
        finally:
            state.cuda_calls = calls
            state.op_counts.clear()
            state.op_counts.update(counts)
            if on_device:
                state.cuda_calls += 1
                state.op_counts[f"triton:{getattr(self.fn, '__name__', 'kernel')}"] += 1

    executor.__call__ = counted_launch  # type: ignore[method-assign]


def count_triton_launches(state: ReferenceState) -> None:
    """Count launches once the program imports Triton (nothing is imported here)."""

    def patch(interpreter: ModuleType) -> None:
        count_launches(state, interpreter.GridExecutor)

    when_imported(INTERPRETER, patch)
