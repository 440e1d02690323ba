"""Synthetic 'digits': 12x12 glyphs drawn from fixed stroke templates, shifted and noised."""

import torch
from torch.utils.data import Dataset

# Seven-segment style strokes on a 12x12 canvas: (row0, row1, col0, col1) rectangles.
_SEGMENTS = {
    "top": (1, 2, 3, 9),
    "mid": (5, 6, 3, 9),
    "bot": (9, 10, 3, 9),
    "tl": (1, 6, 3, 4),
    "tr": (1, 6, 8, 9),
    "bl": (5, 10, 3, 4),
    "br": (5, 10, 8, 9),
}
_DIGITS = [
    ("top", "bot", "tl", "tr", "bl", "br"),
    ("tr", "br"),
    ("top", "mid", "bot", "tr", "bl"),
    ("top", "mid", "bot", "tr", "br"),
    ("mid", "tl", "tr", "br"),
    ("top", "mid", "bot", "tl", "br"),
    ("top", "mid", "bot", "tl", "bl", "br"),
    ("top", "tr", "br"),
    ("top", "mid", "bot", "tl", "tr", "bl", "br"),
    ("top", "mid", "bot", "tl", "tr", "br"),
]


def glyph(digit: int, size: int = 12) -> torch.Tensor:
    img = torch.zeros(size, size)
    for name in _DIGITS[digit]:
        r0, r1, c0, c1 = _SEGMENTS[name]
        img[r0:r1, c0:c1] = 1.0
    return img


class SyntheticDigits(Dataset):
    """Noisy, randomly shifted digit glyphs with their labels (deterministic per seed)."""

    def __init__(self, n: int, seed: int, size: int = 12):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 10, (n,), generator=g)
        templates = torch.stack([glyph(d, size) for d in range(10)])
        shifts = torch.randint(-1, 2, (n, 2), generator=g)
        images = templates[self.labels]
        for i in range(n):
            images[i] = torch.roll(images[i], shifts=(int(shifts[i, 0]), int(shifts[i, 1])), dims=(0, 1))
        images = images + 0.3 * torch.randn(images.shape, generator=g)
        self.images = ((images - 0.5) / 0.5).unsqueeze(1)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]
