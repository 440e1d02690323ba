from kernels.rmsnorm import rms_norm
from kernels.swiglu import silu_mul

__all__ = ["rms_norm", "silu_mul"]
