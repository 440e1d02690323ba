import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, width: int, dropout: float):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, width * 2), nn.SiLU(), nn.Dropout(dropout), nn.Linear(width * 2, width))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class TabularRegressor(nn.Module):
    def __init__(self, n_features: int, width: int = 64, depth: int = 3, dropout: float = 0.1):
        super().__init__()
        self.stem = nn.Linear(n_features, width)
        self.blocks = nn.Sequential(*[ResidualBlock(width, dropout) for _ in range(depth)])
        self.head = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.stem(x))).squeeze(-1)
