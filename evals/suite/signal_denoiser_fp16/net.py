import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.amp import custom_bwd, custom_fwd


class _SoftThreshold(torch.autograd.Function):
    """Learned soft-thresholding (wavelet-style shrinkage), kept in fp32 under autocast."""

    @staticmethod
    @custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x, threshold):
        ctx.save_for_backward(x, threshold)
        return torch.sign(x) * F.relu(x.abs() - threshold)

    @staticmethod
    @custom_bwd(device_type="cuda")
    def backward(ctx, grad_out):
        x, threshold = ctx.saved_tensors
        active = (x.abs() > threshold).to(grad_out.dtype)
        grad_x = grad_out * active
        grad_t = -(grad_out * torch.sign(x) * active).sum(dim=(0, 2), keepdim=True)
        return grad_x, grad_t.view_as(threshold)


class SoftThreshold(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.threshold = nn.Parameter(torch.full((1, channels, 1), 0.05))

    def forward(self, x):
        return _SoftThreshold.apply(x, self.threshold)


class ConvBlock(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv1d(cin, cout, 5, padding=2), nn.GroupNorm(4, cout), nn.SiLU())


class Denoiser(nn.Module):
    """A small 1-D U-Net: two down-sampling stages, a shrinkage bottleneck, skip connections."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.enc1 = ConvBlock(1, width)
        self.enc2 = ConvBlock(width, width * 2)
        self.mid = nn.Sequential(ConvBlock(width * 2, width * 2), SoftThreshold(width * 2))
        self.dec2 = ConvBlock(width * 4, width)
        self.dec1 = ConvBlock(width * 2, width)
        self.out = nn.Conv1d(width, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.avg_pool1d(e1, 2))
        m = self.mid(F.avg_pool1d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(m, scale_factor=2), e2], dim=1))
        d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2), e1], dim=1))
        return x - self.out(d1)  # predict the noise, subtract it
