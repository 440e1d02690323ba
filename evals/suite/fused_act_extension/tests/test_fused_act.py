import torch
import torch.nn.functional as F

from config import DEVICE
from ops import FusedLeakyReLU, fused_leaky_relu


def reference(x, bias, slope=0.2, scale=2**0.5):
    shape = [1, -1] + [1] * (x.ndim - 2)
    return F.leaky_relu(x + bias.view(shape), slope) * scale


def test_matches_reference_on_feature_maps():
    torch.manual_seed(0)
    x = torch.randn(4, 8, 5, 5, device=DEVICE)
    bias = torch.randn(8, device=DEVICE)
    torch.testing.assert_close(fused_leaky_relu(x, bias), reference(x, bias))


def test_gradients_match_reference():
    torch.manual_seed(1)
    x = torch.randn(16, 12, device=DEVICE, requires_grad=True)
    act = FusedLeakyReLU(12).to(DEVICE)
    with torch.no_grad():
        act.bias.normal_()
    fused_leaky_relu(x, act.bias).pow(2).sum().backward()
    grad_fused = x.grad.clone()
    x.grad = None
    reference(x, act.bias).pow(2).sum().backward()
    torch.testing.assert_close(grad_fused, x.grad)
