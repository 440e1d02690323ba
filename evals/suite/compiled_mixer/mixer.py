"""MLP-Mixer for small images: token-mixing and channel-mixing MLPs over patches."""

import torch
import torch.nn as nn


class MlpBlock(nn.Sequential):
    def __init__(self, dim, hidden):
        super().__init__(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))


class MixerLayer(nn.Module):
    def __init__(self, num_patches, dim, token_hidden, channel_hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = MlpBlock(num_patches, token_hidden)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = MlpBlock(dim, channel_hidden)

    def forward(self, x):
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, image_size=16, patch=4, channels=3, dim=64, depth=2, num_classes=5):
        super().__init__()
        num_patches = (image_size // patch) ** 2
        self.stem = nn.Conv2d(channels, dim, patch, stride=patch)
        self.layers = nn.Sequential(*[MixerLayer(num_patches, dim, 32, dim * 2) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        x = self.norm(self.layers(x))
        return self.head(x.mean(dim=1))
