"""Synthetic 1-D signals: sums of damped sinusoids, with additive noise to remove."""

import math

import torch


def make_signals(n: int, length: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    t = torch.linspace(0, 1, length)
    freqs = torch.rand(n, 3, 1, generator=g) * 20 + 2
    phases = torch.rand(n, 3, 1, generator=g) * 2 * math.pi
    amps = torch.rand(n, 3, 1, generator=g)
    decay = torch.rand(n, 3, 1, generator=g) * 3
    clean = (amps * torch.exp(-decay * t) * torch.sin(2 * math.pi * freqs * t + phases)).sum(dim=1, keepdim=True)
    noisy = clean + 0.3 * torch.randn(clean.shape, generator=g)
    return noisy, clean
