import pytest
import torch
import torch.nn.functional as F

from config import DEVICE
from kernels import rms_norm, silu_mul


def rms_norm_ref(x, w, eps):
    x32 = x.float()
    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


@pytest.mark.parametrize("shape", [(3, 64), (2, 5, 48), (7, 100)])
def test_rms_norm_matches_reference(shape):
    torch.manual_seed(0)
    x = torch.randn(shape, device=DEVICE)
    w = torch.rand(shape[-1], device=DEVICE) + 0.5
    torch.testing.assert_close(rms_norm(x, w, 1e-5), rms_norm_ref(x, w, 1e-5), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [17, 1024, 3000])
def test_silu_mul_matches_reference(n):
    torch.manual_seed(1)
    a, b = torch.randn(n, device=DEVICE), torch.randn(n, device=DEVICE)
    torch.testing.assert_close(silu_mul(a, b), F.silu(a) * b, rtol=1e-5, atol=1e-6)
