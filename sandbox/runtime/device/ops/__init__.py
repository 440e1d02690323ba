"""Native kernels of the emulated device: thin glue between PyTorch's aten ops and the NumPy
kernels of `sandbox.kernels`."""

from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.fallback import CpuFallback


def register_native_ops(ctx: DeviceContext, fallback: CpuFallback) -> None:
    """Register every native kernel of the device on `ctx.registry`."""
    from sandbox.runtime.device.ops import conv, core, elementwise, fused, nn, optim, reduce, shape

    core.register(ctx)
    elementwise.register(ctx)
    reduce.register(ctx)
    nn.register(ctx)
    shape.register(ctx)
    optim.register(ctx)
    fused.register(ctx)
    conv.register(ctx, fallback)
