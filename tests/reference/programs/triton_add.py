"""A Triton kernel (vector add), as CUDA code ships them."""

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):  # noqa: N803 (Triton style)
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(
        out_ptr + offsets,
        tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
        mask=mask,
    )


x = torch.arange(100.0, device="cuda")
y = torch.ones(100, device="cuda")
out = torch.empty_like(x)
add_kernel[(2,)](x, y, out, 100, BLOCK=64)
print(f"sum {out.sum().item():.1f}")
