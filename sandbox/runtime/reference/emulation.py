"""The `TorchFunctionMode` that makes CPU tensors behave as CUDA tensors.

Every overridable torch call passes through `Emulation.dispatch`: special functions (device
getters, transfers, random sampling) have handlers; everything else runs on the CPU with any
`device="cuda..."` rewritten to `cpu`, and its outputs are tagged with the CUDA device of its
inputs (or the one asked for), so `.device`, `.is_cuda` and PyTorch's own device checks see CUDA.
"""

import threading
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from sandbox.runtime.reference.state import CPU, ReferenceState
from sandbox.runtime.reference.tags import storage_key
from sandbox.runtime.rng.generator import PhiloxGenerator, device_stream

Handler = Callable[["Emulation", Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any]

RANDOM_OP_NAMES = frozenset(
    {
        "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
        "feature_dropout", "dropout1d", "dropout2d", "dropout3d", "native_dropout", "bernoulli",
        "bernoulli_", "multinomial", "randperm", "poisson", "rrelu", "rrelu_", "exponential_",
        "geometric_", "cauchy_", "log_normal_", "random_", "gumbel_softmax", "rand", "randn",
        "normal", "normal_", "uniform_", "randint", "rand_like", "randn_like", "randint_like",
        "multi_head_attention_forward", "scaled_dot_product_attention", "fractional_max_pool2d",
        "fractional_max_pool3d", "lstm", "gru", "rnn_tanh", "rnn_relu",
    }
)  # fmt: skip
"""Ops that draw random numbers: on CUDA tensors they use the device's own CPU stream (the
recurrent layers for the dropout between their layers)."""


class Emulation:
    """The dispatch logic of the mode, over one process's `ReferenceState`."""

    def __init__(self, state: ReferenceState, generators: list[PhiloxGenerator]) -> None:
        self.state = state
        self.generators = generators
        self.handlers: dict[Any, Handler] = {}
        self.perturbed: set[str] = set()
        self.perturb_hook: Callable[[Any], None] | None = None
        self.mode: CudaOnCpuMode | None = None
        self.half_to_bf16 = state.options.precision == "bf16"

    def device_of(self, tensor: torch.Tensor) -> int | None:
        """CUDA index of `tensor`, or None for a CPU tensor."""
        return self.state.tags.device_of(tensor)

    def tag(self, tensor: torch.Tensor, index: int) -> torch.Tensor:
        """Mark `tensor` (its storage) as living on `cuda:index`; returns it."""
        self.state.tags.tag(tensor, index)
        return tensor

    def generator(self, index: int | None = None) -> PhiloxGenerator:
        """The default CUDA generator of a device (the current one by default)."""
        return self.generators[self.state.current_device if index is None else index]

    def dispatch(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Run one overridable call (the mode is not active while this runs)."""
        handler = self.handlers.get(func)
        if handler is not None:
            return handler(self, func, args, kwargs)
        return self.default(func, args, kwargs)

    def default(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Run `func` on the CPU and tag its outputs with the CUDA device they belong to."""
        out_device, kwargs = self._target_device(args, kwargs)
        name = getattr(func, "__name__", "")
        if self.half_to_bf16:
            func, args, kwargs = _half_to_bf16(func, args, kwargs)
        if out_device is None:
            result = func(*args, **kwargs)
            self._maybe_perturb(name, result)
            return result
        self.state.cuda_calls += 1
        self.state.op_counts[name] += 1
        if name in RANDOM_OP_NAMES:
            with device_stream(self.generators[out_device]):
                result = func(*args, **kwargs)
        else:
            result = func(*args, **kwargs)
        if not _is_in_place(name, kwargs):
            self._tag_outputs(result, out_device, args, kwargs)
        self._maybe_perturb(name, result)
        return result

    def _target_device(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[int | None, dict[str, Any]]:
        """The CUDA device the outputs belong to (None: CPU), and kwargs with cuda → cpu."""
        device = kwargs.get("device")
        if device is not None:
            index = self.state.parse_device(device)
            if index is None or index == CPU:
                return None, kwargs
            return index, {**kwargs, "device": "cpu"}
        generator = kwargs.get("generator")
        if isinstance(generator, PhiloxGenerator):
            return generator.index, kwargs
        for tensor in iter_tensors(args, kwargs):
            index = self.device_of(tensor)
            if index is not None:
                return index, kwargs
        return None, kwargs

    def _tag_outputs(
        self, result: Any, device: int, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        outputs = list(iter_tensors((result,), {}))
        if not outputs:
            return
        host = self._host_storages(args, kwargs)
        for tensor in outputs:
            if host and storage_key(tensor) in host:
                continue  # a view of a CPU input (broadcast_tensors, expand_as, ...)
            self.state.tags.tag(tensor, device)

    def _host_storages(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> set[int | None]:
        keys = set()
        for tensor in iter_tensors(args, kwargs):
            if tensor.dim() and self.device_of(tensor) is None:
                keys.add(storage_key(tensor))
        return keys

    def _maybe_perturb(self, name: str, result: Any) -> None:
        if self.perturb_hook is not None and name in self.perturbed:
            self.perturb_hook(result)


def _half_to_bf16(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    """The bf16 precision rerun: explicit fp16 becomes bf16 (`.half()`, `dtype=torch.float16`)."""
    if func is torch.Tensor.half:
        return torch.Tensor.bfloat16, args, kwargs
    if any(value is torch.float16 for value in (*args, *kwargs.values())):
        args = tuple(torch.bfloat16 if value is torch.float16 else value for value in args)
        kwargs = {k: torch.bfloat16 if v is torch.float16 else v for k, v in kwargs.items()}
    return func, args, kwargs


def _is_in_place(name: str, kwargs: dict[str, Any]) -> bool:
    """In-place ops and `out=` keep their destination's device."""
    if kwargs.get("out") is not None:
        return True
    if name.startswith("__i") or name == "__setitem__":
        return True
    return name.endswith("_") and not name.endswith("__")


def iter_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[torch.Tensor]:
    """Tensors among the arguments, one level into lists and tuples."""
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, torch.Tensor):
                    yield item


class CudaOnCpuMode(TorchFunctionMode):
    """Pushed for the life of the process (and in every new thread)."""

    def __init__(self, emulation: Emulation) -> None:
        super().__init__()
        self.emulation = emulation

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        return self.emulation.dispatch(func, args, kwargs or {})


def push_in_every_thread(mode: CudaOnCpuMode) -> None:
    """Mode stacks are per thread: push `mode` here and at the start of every new thread."""
    mode.__enter__()
    original_run = threading.Thread.run

    def run_with_mode(thread: threading.Thread) -> None:
        with mode:
            original_run(thread)

    threading.Thread.run = run_with_mode  # type: ignore[method-assign,assignment]
