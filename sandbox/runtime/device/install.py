"""Turn this process's PrivateUse1 backend into the emulated `tpu`/`neuron` device."""

import atexit
import logging
import os
import types
from typing import Any

import torch

from sandbox.runtime.config import RuntimeConfig, load_config
from sandbox.runtime.device import autocast, compiling, distributed, guards, host, patches
from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.dispatch import NativeRegistry
from sandbox.runtime.device.events import make_event_classes
from sandbox.runtime.device.fallback import CpuFallback
from sandbox.runtime.device.memory import DeviceMemory
from sandbox.runtime.device.module import build_device_module
from sandbox.runtime.device.ops import register_native_ops
from sandbox.runtime.device.policy import DtypePolicy
from sandbox.runtime.device.random import DeviceRandom
from sandbox.runtime.device.tensors import Allocator
from sandbox.runtime.metrics import RuntimeMetrics, write_metrics
from sandbox.runtime.rng.generator import patch_generator_class

log = logging.getLogger("torchport." + __name__)

_ACTIVE: list[DeviceContext] = []
"""The one context of this process (PrivateUse1 can be renamed only once per process)."""


def active_context() -> DeviceContext | None:
    """The installed device of this process, if any."""
    return _ACTIVE[0] if _ACTIVE else None


def build_context(config: RuntimeConfig) -> DeviceContext:
    """Assemble memory, metrics, dtype policy, allocator and registry for `config`."""
    profile = config.profile
    device = torch.device(profile.target, 0)
    memory = DeviceMemory(config.memory_budget, f"{profile.target}:0 ({profile.chip.name})")
    metrics = RuntimeMetrics(profile.target, profile.chip.name, memory.figures)
    policy = DtypePolicy(profile, metrics, device)
    allocator = Allocator(device, memory, policy.guard)
    registry = NativeRegistry(metrics, device)
    return DeviceContext(config, device, metrics, memory, policy, allocator, registry)


def install_device(target: str, *, chip: str | None, results_dir: str | None) -> None:
    """Install the emulated `target` device (profile `chip`) into this process.

    Raises ProfileError for an unknown target/chip or a bad TORCHPORT_RT_* value."""
    if _ACTIVE:
        return
    config = load_config(target, chip, results_dir, os.environ)
    host.pin_threads(config.threads)
    host.keep_freed_memory()
    torch.utils.rename_privateuse1_backend(target)
    ctx = build_context(config)
    event_class, device_event = make_event_classes(target)
    rng = DeviceRandom(ctx.device, config.rng_gpu)
    module = build_device_module(ctx, device_event, rng)
    _register_backend_module(target, module)
    cpu_fallback = CpuFallback(config, ctx.metrics, ctx.allocator, ctx.policy)
    cpu_fallback.random = rng
    register_native_ops(ctx, cpu_fallback, rng)
    patch_generator_class(rng.generator_for)
    fallback = torch.library.Library("_", "IMPL")
    fallback.fallback(cpu_fallback, "PrivateUse1")
    autocast.install(ctx)
    patches.apply_all(ctx, module, event_class)
    guards.disable_cuda()
    guards.block_triton(target)
    distributed.register_backend(ctx)
    compiling.install(target)
    _ACTIVE.append(ctx)
    _LIBRARIES.append(fallback)
    if results_dir:
        atexit.register(_write_metrics_at_exit, ctx, results_dir)
    log.debug("emulated %s (%s) installed", target, config.profile.chip.name)


_LIBRARIES: list[torch.library.Library] = []


class _Hooks(torch._C._acc.PrivateUse1Hooks):
    """What PyTorch asks of a PrivateUse1 backend's hooks."""

    def is_available(self) -> bool:
        return True

    def has_primary_context(self, dev_id: int) -> bool:
        return True

    def is_built(self) -> bool:
        return True


class _Guard(torch._C._acc.DeviceGuard):
    """The device guard of the Python backend (only its type is consulted)."""

    def type_(self) -> Any:
        return torch._C._autograd.DeviceType.PrivateUse1


def _register_backend_module(target: str, module: types.ModuleType) -> None:
    """The steps of torch's `_setup_privateuseone_for_python_backend` after the rename, in its
    order: generated methods (`.tpu()`, `is_tpu`), the device module, hooks, device guard."""
    torch.utils.generate_methods_for_privateuse1_backend()
    torch._register_device_module(target, module)
    torch._C._acc.register_python_privateuseone_hook(_Hooks())
    torch._C._acc.register_python_privateuseone_device_guard(_Guard())


"""Keeps library registrations alive for the life of the process."""


def _write_metrics_at_exit(ctx: DeviceContext, results_dir: str) -> None:
    try:
        write_metrics(ctx.metrics, results_dir)
    except OSError as error:
        log.error("could not write runtime metrics to %s: %s", results_dir, error)
