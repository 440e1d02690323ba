"""The pieces of one emulated device that kernels and patches share (built once by install)."""

import os
from dataclasses import dataclass

import torch

from sandbox.runtime.config import RuntimeConfig
from sandbox.runtime.device.dispatch import NativeRegistry
from sandbox.runtime.device.memory import DeviceMemory
from sandbox.runtime.device.policy import DtypePolicy
from sandbox.runtime.device.tensors import Allocator
from sandbox.runtime.metrics import RuntimeMetrics


@dataclass(frozen=True)
class DeviceContext:
    """Config, counters, memory and registration of the emulated device in this process."""

    config: RuntimeConfig
    device: torch.device
    metrics: RuntimeMetrics
    memory: DeviceMemory
    policy: DtypePolicy
    allocator: Allocator
    registry: NativeRegistry

    @property
    def target(self) -> str:
        """`tpu` or `neuron`."""
        return self.device.type


def device_count() -> int:
    """Emulated devices this process may address: one per local torchrun worker, else 1.

    Each process still owns one physical emulated device; tensors report index 0 (PyTorch's
    Python backend cannot create tensors on another index)."""
    text = os.environ.get("LOCAL_WORLD_SIZE", "1")
    return max(int(text), 1) if text.isdigit() else 1
