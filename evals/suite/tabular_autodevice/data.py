"""Synthetic house-price table: mixed numeric features with a nonlinear target."""

import numpy as np
import torch


def make_table(n_rows: int, seed: int):
    rng = np.random.default_rng(seed)
    area = rng.uniform(40, 250, n_rows)
    rooms = rng.integers(1, 7, n_rows).astype(np.float64)
    age = rng.uniform(0, 80, n_rows)
    dist = rng.exponential(8.0, n_rows)
    floor = rng.integers(0, 12, n_rows).astype(np.float64)
    price = 2.1 * area + 14 * rooms - 0.9 * age - 6 * np.log1p(dist) + 3 * np.sqrt(floor) + 0.004 * area * rooms
    price = price + rng.normal(0, 12.0, n_rows)
    features = np.stack([area, rooms, age, dist, floor], axis=1)
    return features.astype(np.float32), price.astype(np.float32)


class Standardizer:
    def fit(self, x: torch.Tensor):
        self.mean = x.mean(dim=0, keepdim=True)
        self.std = x.std(dim=0, keepdim=True)
        return self

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / self.std
