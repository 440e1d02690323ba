import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, in_dim=20, hidden=96, out_dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, out_dim))

    def forward(self, x):
        return self.net(x)


class Classifier(nn.Module):
    def __init__(self, backbone: Backbone, num_classes: int, feat_dim: int = 32):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def make_task(n, num_classes, seed, shift=0.0):
    """Gaussian classes in 20-D; `shift` moves the class means (the downstream domain)."""
    g = torch.Generator().manual_seed(seed)
    means = torch.randn(num_classes, 20, generator=torch.Generator().manual_seed(99)) * 0.6 + shift
    y = torch.randint(0, num_classes, (n,), generator=g)
    x = means[y] + 1.5 * torch.randn(n, 20, generator=g)
    return x, y
