import torch
from torch.utils.data import Dataset


class SpiralDataset(Dataset):
    """Points on K interleaved noisy spirals; label = spiral arm."""

    def __init__(self, n: int, arms: int = 3, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        self.y = torch.randint(0, arms, (n,), generator=g)
        r = torch.rand(n, generator=g) * 4 + 0.2
        theta = r * 1.6 + self.y.float() * (2 * torch.pi / arms) + 0.2 * torch.randn(n, generator=g)
        self.x = torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
