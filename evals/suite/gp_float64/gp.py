"""Exact Gaussian-process regression with an RBF + periodic kernel, in float64 on the GPU."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def softplus_inv(x):
    return x + torch.log(-torch.expm1(-x))


class ExactGP(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_x = train_x
        self.train_y = train_y
        opts = dict(dtype=train_x.dtype, device=train_x.device)
        self.raw_lengthscale = nn.Parameter(softplus_inv(torch.tensor(0.5, **opts)))
        self.raw_period_len = nn.Parameter(softplus_inv(torch.tensor(0.8, **opts)))
        self.raw_period = nn.Parameter(softplus_inv(torch.tensor(1.2, **opts)))
        self.raw_outputscale = nn.Parameter(softplus_inv(torch.tensor(1.0, **opts)))
        self.raw_noise = nn.Parameter(softplus_inv(torch.tensor(0.1, **opts)))
        self.mean_const = nn.Parameter(torch.zeros((), **opts))

    @property
    def noise(self):
        return F.softplus(self.raw_noise) + 1e-6

    def kernel(self, a, b):
        d = a[:, None] - b[None, :]
        ls = F.softplus(self.raw_lengthscale)
        rbf = torch.exp(-0.5 * (d / ls) ** 2)
        period = F.softplus(self.raw_period)
        per = torch.exp(-2 * torch.sin(math.pi * d.abs() / period) ** 2 / F.softplus(self.raw_period_len) ** 2)
        return F.softplus(self.raw_outputscale) * rbf * per

    def neg_log_marginal_likelihood(self):
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.noise * torch.eye(n, dtype=self.train_x.dtype, device=self.train_x.device)
        L = torch.linalg.cholesky(K)
        r = (self.train_y - self.mean_const)[:, None]
        alpha = torch.cholesky_solve(r, L)
        nll = 0.5 * (r * alpha).sum() + torch.log(torch.diagonal(L)).sum() + 0.5 * n * math.log(2 * math.pi)
        return nll / n

    @torch.no_grad()
    def predict(self, test_x):
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.noise * torch.eye(n, dtype=self.train_x.dtype, device=self.train_x.device)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(test_x, self.train_x)
        alpha = torch.cholesky_solve((self.train_y - self.mean_const)[:, None], L)
        mean = (Ks @ alpha).squeeze(-1) + self.mean_const
        v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
        var = F.softplus(self.raw_outputscale) - (v * v).sum(0) + self.noise
        return mean, var
