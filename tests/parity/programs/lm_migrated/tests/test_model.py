"""The repo's own test: the model maps tokens to one logit per vocabulary entry."""

import torch
from train import TinyLM


def test_shapes() -> None:
    model = TinyLM(48, 32, 16)
    assert model(torch.zeros(2, 16, dtype=torch.long)).shape == (2, 16, 48)
