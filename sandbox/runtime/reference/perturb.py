"""Input perturbation for the reference's conditioning rerun (`TORCHPORT_RT_PERTURB=eps`).

Every floating tensor the program draws at random (CPU or CUDA), builds from data
(`torch.tensor`) or loads (`torch.load`) has each element scaled by `1 + eps` or `1 - eps`, the
signs from a fixed pattern of their own (no random stream of the program is touched). Element-wise
noise of rounding size is what two correct implementations differ by; a uniform scale would not
do: Adam's steps ignore the scale of the gradients. A well-conditioned output moves by about
`eps` times its condition number; one that moves past its tolerance is ill-conditioned and cannot
be compared value by value.
"""

import functools
from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.reference.emulation import Emulation

PERTURBED_OPS = frozenset(
    {
        "rand", "randn", "rand_like", "randn_like", "normal", "normal_", "uniform_", "tensor",
        "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_",
        "trunc_normal_",
    }
)  # fmt: skip
"""Torch functions whose floating outputs are program inputs."""


SIGN_SEED = 20_261_129


def _factors(value: torch.Tensor, eps: float) -> torch.Tensor:
    """`1 ± eps` per element, the signs fixed by the tensor's size (reproducible across runs)."""
    signs = torch.Generator().manual_seed(SIGN_SEED + value.numel())
    pattern = torch.randint(0, 2, tuple(value.shape), generator=signs, dtype=torch.float64)
    return (1.0 + eps * (2.0 * pattern - 1.0)).to(value.dtype)


def make_hook(eps: float) -> Callable[[Any], None]:
    """A function that nudges every floating tensor in a (nested) value by `± eps` per element."""

    def perturb(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            if value.is_floating_point() and value.numel():
                with torch.no_grad(), torch._C.DisableTorchFunction():
                    value.mul_(_factors(value, eps))
        elif isinstance(value, dict):
            for item in value.values():
                perturb(item)
        elif isinstance(value, list | tuple):
            for item in value:
                perturb(item)

    return perturb


def install_perturbation(emulation: Emulation, eps: float) -> None:
    """Perturb drawn, built and loaded tensors by `eps` for the rest of the process."""
    hook = make_hook(eps)
    emulation.perturb_hook = hook
    emulation.perturbed = set(PERTURBED_OPS)
    original_load = torch.load

    @functools.wraps(original_load)
    def load(*args: Any, **kwargs: Any) -> Any:
        result = original_load(*args, **kwargs)
        hook(result)
        return result

    torch.load = load
