"""Native kernels of the emulated device: thin glue between PyTorch's aten ops and the NumPy
kernels of `sandbox.kernels`."""

from sandbox.runtime.device.context import DeviceContext
from sandbox.runtime.device.fallback import CpuFallback
from sandbox.runtime.device.random import DeviceRandom


def register_native_ops(ctx: DeviceContext, fallback: CpuFallback, rng: DeviceRandom) -> None:
    """Register every native kernel of the device on `ctx.registry`."""
    from sandbox.runtime.device.ops import (
        conv,
        core,
        elementwise,
        fused,
        nn,
        optim,
        random,
        recurrent,
        reduce,
        shape,
    )

    core.register(ctx)
    elementwise.register(ctx)
    reduce.register(ctx)
    nn.register(ctx)
    shape.register(ctx)
    optim.register(ctx)
    fused.register(ctx)
    conv.register(ctx, fallback)
    random.register(ctx, rng, fallback)
    recurrent.register(ctx)
