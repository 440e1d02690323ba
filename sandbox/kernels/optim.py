"""In-place optimizer updates on float32 arrays, with the arithmetic of PyTorch's fused kernels:
Adam/AdamW (decoupled or L2 weight decay, amsgrad, maximize) and SGD (momentum, dampening,
nesterov, weight decay, maximize). Arrays are updated in place; nothing is returned."""

from dataclasses import dataclass

import numpy as np

from sandbox.kernels.precision import FloatArray


@dataclass(frozen=True)
class AdamConfig:
    """Hyper-parameters of one Adam/AdamW step."""

    lr: float
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    weight_decay: float = 0.0
    decoupled: bool = True
    amsgrad: bool = False
    maximize: bool = False


def adam_step(
    param: FloatArray,
    grad: FloatArray,
    exp_avg: FloatArray,
    exp_avg_sq: FloatArray,
    step: float,
    config: AdamConfig,
    max_exp_avg_sq: FloatArray | None = None,
) -> None:
    """One Adam (or AdamW with `decoupled=True`) update of `param` at step number `step` (>= 1)."""
    g = -grad if config.maximize else grad
    if config.weight_decay != 0.0:
        if config.decoupled:
            param *= np.float32(1.0 - config.lr * config.weight_decay)
        else:
            g = g + np.float32(config.weight_decay) * param
    exp_avg += (g - exp_avg) * np.float32(1.0 - config.beta1)
    exp_avg_sq *= np.float32(config.beta2)
    exp_avg_sq += np.float32(1.0 - config.beta2) * g * g
    bias_correction1 = 1.0 - config.beta1**step
    bias_correction2_sqrt = (1.0 - config.beta2**step) ** 0.5
    second = exp_avg_sq
    if config.amsgrad:
        if max_exp_avg_sq is None:
            raise ValueError("amsgrad needs the max_exp_avg_sq buffer")
        np.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
        second = max_exp_avg_sq
    denom = np.sqrt(second)
    denom /= np.float32(bias_correction2_sqrt)
    denom += np.float32(config.eps)
    np.divide(exp_avg, denom, out=denom)
    denom *= np.float32(config.lr / bias_correction1)
    param -= denom


@dataclass(frozen=True)
class SgdConfig:
    """Hyper-parameters of one SGD step."""

    lr: float
    momentum: float = 0.0
    dampening: float = 0.0
    weight_decay: float = 0.0
    nesterov: bool = False
    maximize: bool = False


def sgd_step(
    param: FloatArray,
    grad: FloatArray,
    config: SgdConfig,
    momentum_buffer: FloatArray | None = None,
    first_step: bool = False,
) -> None:
    """One SGD update of `param`; `momentum_buffer` is required when momentum != 0 and is set to
    the gradient on the first step (as PyTorch does), then updated in place."""
    g = -grad if config.maximize else grad
    if config.weight_decay != 0.0:
        g = g + np.float32(config.weight_decay) * param
    if config.momentum != 0.0:
        if momentum_buffer is None:
            raise ValueError("momentum != 0 needs a momentum buffer")
        if first_step:
            momentum_buffer[...] = g
        else:
            momentum_buffer *= np.float32(config.momentum)
            momentum_buffer += np.float32(1.0 - config.dampening) * g
        g = (
            g + np.float32(config.momentum) * momentum_buffer
            if config.nesterov
            else momentum_buffer
        )
    param -= np.float32(config.lr) * g
