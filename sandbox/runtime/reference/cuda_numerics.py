"""CPU kernels whose reduced-precision arithmetic is not CUDA's, computed as CUDA does for
logical-CUDA tensors.

`_log_softmax` over the last dimension of a bf16/fp16 tensor: PyTorch's vectorised CPU kernel
keeps the row's sum of exponentials, and its logarithm, in the input dtype, so it returns
`round(x - max - round(log(round(sum))))` and every row shares one extra rounding error. CUDA's
kernel accumulates in float and rounds the output once: `round(x - max - log(sum))`. The extra
error reaches every bf16/fp16 `cross_entropy` (which calls log_softmax in the input dtype), and it
made the reference's low-precision reruns differ structurally from a migrated run on a device
that computes as CUDA does. (Other dimensions, softmax and the backward already agree.)
"""

import warnings
from typing import Any

import torch

from sandbox.runtime.reference.state import ReferenceState

_REDUCED = (torch.bfloat16, torch.float16)


def register_cuda_numerics(state: ReferenceState) -> torch.library.Library:
    """Register the CUDA-like kernels on the CPU key; returns the library (keep it alive)."""
    log_softmax_out = torch.ops.aten._log_softmax.out

    def log_softmax(x: torch.Tensor, dim: int, half_to_float: bool) -> torch.Tensor:
        dtype = torch.float32 if half_to_float else x.dtype
        if x.dtype in _REDUCED and state.tags.device_of(x) is not None:
            wide = log_softmax_out(x.float(), dim, False, out=torch.empty(0))
            return wide.to(dtype)
        return log_softmax_out(x, dim, half_to_float, out=torch.empty(0, dtype=dtype))

    library = torch.library.Library("aten", "IMPL")
    kernel: Any = log_softmax
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel"
        library.impl("_log_softmax", kernel, "CPU")
    return library
