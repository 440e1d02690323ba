"""Shared helpers for the kernel tests: PyTorch CPU is the reference; inputs are made in torch,
handed to the kernels as float32 NumPy arrays, and results compared with dtype-aware tolerances."""

from collections.abc import Callable, Sequence

import numpy as np
import torch

from sandbox.kernels.precision import Precision

DTYPES: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16}
TOLERANCE: dict[str, tuple[float, float]] = {"float32": (1e-5, 1e-5), "bfloat16": (2e-2, 2e-2)}


def as_numpy(t: torch.Tensor) -> np.ndarray:
    """float32 NumPy copy of a (possibly bf16, possibly non-leaf) tensor."""
    return t.detach().to(torch.float32).numpy()


def make(*shape: int, dtype: str, seed: int = 0, scale: float = 1.0) -> torch.Tensor:
    """A random tensor of `dtype` (leaf, requires grad)."""
    gen = torch.Generator().manual_seed(seed)
    values = torch.randn(*shape, generator=gen) * scale
    return values.to(DTYPES[dtype]).requires_grad_(True)


def check(ours: np.ndarray, theirs: torch.Tensor, dtype: str, scale: float = 1.0) -> None:
    """Assert `ours` matches torch's result within the tolerance of `dtype`."""
    rtol, atol = TOLERANCE[dtype]
    np.testing.assert_allclose(
        np.asarray(ours, dtype=np.float32), as_numpy(theirs), rtol=rtol, atol=atol * scale
    )


def torch_grads(
    fn: Callable[..., torch.Tensor], inputs: Sequence[torch.Tensor], grad: torch.Tensor
) -> list[torch.Tensor]:
    """Gradients of `fn(*inputs)` w.r.t. the inputs that require grad, for upstream `grad`."""
    out = fn(*inputs)
    leaves = [t for t in inputs if t.requires_grad]
    return list(torch.autograd.grad(out, leaves, grad))


def precision(dtype: str) -> Precision:
    """The kernel precision matching a test dtype name."""
    return "bfloat16" if dtype == "bfloat16" else "float32"
