"""A DDPM on 2-D points: linear beta schedule, epsilon prediction, ancestral sampling."""

import math

import torch
import torch.nn as nn


def sinusoidal_embedding(t, dim=32):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([args.sin(), args.cos()], dim=-1)


class EpsModel(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.t_proj = nn.Sequential(nn.Linear(32, hidden), nn.SiLU())
        self.inp = nn.Linear(2, hidden)
        self.mid = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.out = nn.Linear(hidden, 2)

    def forward(self, x, t):
        return self.out(self.mid(self.inp(x) + self.t_proj(sinusoidal_embedding(t))))


class GaussianDiffusion:
    def __init__(self, timesteps=50, beta_start=1e-4, beta_end=0.1, device="cuda"):
        self.T = timesteps
        self.betas = torch.linspace(beta_start, beta_end, timesteps, device=device)
        self.alphas = 1.0 - self.betas
        self.alpha_bars = torch.cumprod(self.alphas, dim=0)

    def q_sample(self, x0, t, noise):
        ab = self.alpha_bars[t][:, None]
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise

    def loss(self, model, x0, generator):
        t = torch.randint(0, self.T, (x0.shape[0],), device=x0.device, generator=generator)
        noise = torch.randn(x0.shape, device=x0.device, generator=generator)
        return (model(self.q_sample(x0, t, noise), t) - noise).pow(2).mean()

    @torch.no_grad()
    def sample(self, model, n, generator):
        x = torch.randn(n, 2, device=self.betas.device, generator=generator)
        for i in reversed(range(self.T)):
            t = torch.full((n,), i, device=x.device, dtype=torch.long)
            eps = model(x, t)
            mean = (x - self.betas[i] / (1 - self.alpha_bars[i]).sqrt() * eps) / self.alphas[i].sqrt()
            if i > 0:
                x = mean + self.betas[i].sqrt() * torch.randn(x.shape, device=x.device, generator=generator)
            else:
                x = mean
        return x
