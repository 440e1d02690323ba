"""Synthetic 3x16x16 'textures': each class is a mix of oriented gratings, uint8 like decoded JPEGs."""

import math

import torch
from torch.utils.data import Dataset


class Gratings(Dataset):
    def __init__(self, n: int, num_classes: int = 6, size: int = 16, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, num_classes, (n,), generator=g)
        yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
        angles = self.labels.float() * math.pi / num_classes
        freq = 0.5 + 0.1 * self.labels.float()
        phase = torch.rand(n, generator=g) * 2 * math.pi
        wave = torch.sin(freq[:, None, None] * (xx * torch.cos(angles)[:, None, None] + yy * torch.sin(angles)[:, None, None]) + phase[:, None, None])
        color = torch.rand(n, 3, 1, 1, generator=g) * 0.5 + 0.5
        img = color * wave[:, None] * 0.5 + 0.5 + 0.45 * torch.randn(n, 3, size, size, generator=g)
        self.images = (img.clamp(0, 1) * 255).to(torch.uint8)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]
