"""The errors the emulated device raises where the real chip would fail."""

import torch


class DeviceOutOfMemoryError(torch.OutOfMemoryError):
    """An allocation would exceed the device memory budget (RESOURCE_EXHAUSTED on a TPU)."""


class Float64UnsupportedError(TypeError):
    """A float64 tensor on a device whose profile forbids float64."""


class FallbackForbiddenError(NotImplementedError):
    """Strict mode: an op without a native kernel would have run on the CPU fallback."""


def mixed_devices_error(first: torch.device, second: torch.device) -> RuntimeError:
    """PyTorch's own error for operands on two devices."""
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{first} and {second}!"
    )


def format_bytes(count: int) -> str:
    """1536 -> '1.50K', in the style of XLA's memory reports."""
    value = float(count)
    for unit in ("", "K", "M", "G", "T"):
        if abs(value) < 1024 or unit == "T":
            return f"{value:.2f}{unit}" if unit else f"{int(value)}B"
        value /= 1024
    return f"{value:.2f}T"
