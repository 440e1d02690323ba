import torch
import torch.nn.functional as F

import config
from dataset import SyntheticDigits
from model import Net


def test_forward_shape_on_device():
    model = Net().to(config.DEVICE)
    x = torch.randn(4, 1, config.IMAGE_SIZE, config.IMAGE_SIZE, device=config.DEVICE)
    out = model(x)
    assert out.shape == (4, 10)
    assert out.device.type == torch.device(config.DEVICE).type


def test_a_few_steps_reduce_the_loss():
    torch.manual_seed(0)
    data = SyntheticDigits(128, seed=3)
    x, y = data.images.to(config.DEVICE), data.labels.to(config.DEVICE)
    model = Net().to(config.DEVICE)
    model.eval()  # no dropout: the comparison below must be deterministic
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    first = F.cross_entropy(model(x), y).item()
    for _ in range(10):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    assert F.cross_entropy(model(x), y).item() < first
