"""`install_reference`: turn this interpreter into a CUDA machine backed by the CPU."""

import functools
import os
from types import ModuleType
from typing import Any

import torch

from sandbox.runtime.reference import unavailable
from sandbox.runtime.reference.accelerator import (
    accelerator_functions,
    patch_device_module,
    patch_nvtx,
    patch_versions_and_backends,
)
from sandbox.runtime.reference.autocast import register_cuda_lists
from sandbox.runtime.reference.autocast_state import AutocastState
from sandbox.runtime.reference.cuda_api import CudaFacade
from sandbox.runtime.reference.cuda_numerics import register_cuda_numerics
from sandbox.runtime.reference.distributed import patch_distributed
from sandbox.runtime.reference.emulation import CudaOnCpuMode, Emulation, push_in_every_thread
from sandbox.runtime.reference.generator import patch_generator
from sandbox.runtime.reference.init_ops import init_handlers
from sandbox.runtime.reference.memory import MemoryFacade
from sandbox.runtime.reference.metrics import write_metrics_at_exit
from sandbox.runtime.reference.perturb import install_perturbation
from sandbox.runtime.reference.profiles import resolve_profile
from sandbox.runtime.reference.rng_ops import rng_handlers
from sandbox.runtime.reference.state import Options, ReferenceState
from sandbox.runtime.reference.streams import (
    EmulatedEvent,
    EmulatedStream,
    StreamRegistry,
    patch_record_stream,
)
from sandbox.runtime.reference.tensor_methods import tensor_handlers
from sandbox.runtime.reference.triton_launches import count_triton_launches
from sandbox.runtime.rng.generator import PhiloxGenerator

_installed: dict[str, Any] = {}
"""What must stay alive for the life of the process (the autocast library, the mode)."""


def install_reference(profile: str | None, results_dir: str | None) -> None:
    """Install the reference runtime (GPU `profile`, A100 by default) before user code runs."""
    if _installed:
        return
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must precede any `import triton`
    state = ReferenceState(resolve_profile(profile), Options.from_env(os.environ))
    generators = [PhiloxGenerator(torch.device("cuda", i)) for i in range(state.device_count)]
    emulation = Emulation(state, generators)
    for handlers in (tensor_handlers(), rng_handlers(), init_handlers()):
        emulation.handlers.update(handlers)
    _install_facade(emulation)
    _installed["autocast"] = _install_autocast(state)
    _installed["numerics"] = register_cuda_numerics(state)
    patch_generator(state)
    from sandbox.runtime.reference.serialization import patch_serialization

    patch_serialization(state)
    patch_distributed()
    unavailable.block_custom_cuda(state)
    count_triton_launches(state)
    _force_eager()
    if state.options.perturb:
        install_perturbation(emulation, state.options.perturb)
    if results_dir:
        write_metrics_at_exit(state, results_dir)
    mode = CudaOnCpuMode(emulation)
    emulation.mode = mode
    push_in_every_thread(mode)
    _installed["mode"] = mode
    _installed["state"] = state


def _install_facade(emulation: Emulation) -> None:
    state = emulation.state
    streams = StreamRegistry(state)
    EmulatedStream.state = state
    EmulatedStream.registry = streams
    EmulatedEvent.salt_ms = float(state.options.salt)
    cuda = CudaFacade(emulation, streams)
    memory = MemoryFacade(state)
    functions = {**cuda.functions(), **memory.functions()}
    _patch(torch.cuda, functions)
    for module in (torch.cuda.memory, torch.cuda.random, torch.cuda.streams, torch.cuda.graphs):
        _patch(module, {k: v for k, v in functions.items() if hasattr(module, k)})
    _patch(torch.accelerator, accelerator_functions(cuda, memory))
    patch_device_module()
    patch_versions_and_backends()
    patch_nvtx()
    patch_record_stream()


def _install_autocast(state: ReferenceState) -> torch.library.Library:
    _patch(torch, AutocastState(state).functions())
    return register_cuda_lists()


def _patch(module: ModuleType, functions: dict[str, Any]) -> None:
    for name, function in functions.items():
        setattr(module, name, function)


def _force_eager() -> None:
    """`torch.compile` returns its argument: the reference is the eager program's numerics."""
    original = torch.compile

    @functools.wraps(original)
    def compile_eagerly(model: Any = None, **kwargs: Any) -> Any:
        if model is None:
            return lambda function: function
        return model

    torch.compile = compile_eagerly
