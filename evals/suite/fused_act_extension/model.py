"""StyleGAN2-style mapping network: equalised-learning-rate linear layers with fused bias + leaky ReLU."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ops import fused_leaky_relu


class PixelNorm(nn.Module):
    def forward(self, x):
        return x * torch.rsqrt(torch.mean(x**2, dim=1, keepdim=True) + 1e-8)


class EqualLinear(nn.Module):
    def __init__(self, in_dim, out_dim, bias_init=0.0, lr_mul=1.0, activation=None):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_dim, in_dim).div_(lr_mul))
        self.bias = nn.Parameter(torch.zeros(out_dim).fill_(bias_init))
        self.activation = activation
        self.scale = (1 / math.sqrt(in_dim)) * lr_mul
        self.lr_mul = lr_mul

    def forward(self, x):
        if self.activation:
            out = F.linear(x, self.weight * self.scale)
            return fused_leaky_relu(out, self.bias * self.lr_mul)
        return F.linear(x, self.weight * self.scale, bias=self.bias * self.lr_mul)


class MappingNetwork(nn.Module):
    def __init__(self, z_dim=32, w_dim=32, n_layers=4, lr_mul=0.01):
        super().__init__()
        layers = [PixelNorm()]
        for i in range(n_layers):
            layers.append(EqualLinear(z_dim if i == 0 else w_dim, w_dim, lr_mul=lr_mul, activation="fused_lrelu"))
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z)
