"""SwiGLU gate, silu(a) * b, as one elementwise Triton kernel."""

import torch
import triton
import triton.language as tl


@triton.jit
def _silu_mul_kernel(A, B, OUT, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(A + offsets, mask=mask).to(tl.float32)
    b = tl.load(B + offsets, mask=mask).to(tl.float32)
    out = a * tl.sigmoid(a) * b
    tl.store(OUT + offsets, out.to(OUT.dtype.element_ty), mask=mask)


def silu_mul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert a.shape == b.shape and a.is_cuda
    a, b = a.contiguous(), b.contiguous()
    out = torch.empty_like(a)
    n = out.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    _silu_mul_kernel[grid](a, b, out, n, BLOCK=1024)
    return out
