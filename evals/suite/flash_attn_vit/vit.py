"""A small Vision Transformer; attention uses flash-attn when it is installed, else PyTorch SDPA."""

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from flash_attn import flash_attn_func

    HAS_FLASH_ATTN = True
except ImportError:
    flash_attn_func = None
    HAS_FLASH_ATTN = False


class Attention(nn.Module):
    def __init__(self, dim, num_heads=4, attn_drop=0.0):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.attn_drop = attn_drop

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim)
        dropout_p = self.attn_drop if self.training else 0.0
        if HAS_FLASH_ATTN and x.is_cuda and qkv.dtype in (torch.float16, torch.bfloat16):
            q, k, v = qkv.unbind(2)  # (B, N, H, D): the flash-attn layout
            out = flash_attn_func(q, k, v, dropout_p=dropout_p, softmax_scale=self.scale)
        else:
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # (B, H, N, D): the SDPA layout
            out = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, scale=self.scale).transpose(1, 2)
        return self.proj(out.reshape(B, N, C))


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=2.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, int(dim * mlp_ratio)), nn.GELU(), nn.Linear(int(dim * mlp_ratio), dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=1, num_classes=4, dim=64, depth=2, num_heads=4):
        super().__init__()
        self.patch_embed = nn.Conv2d(in_chans, dim, patch_size, stride=patch_size)
        num_patches = (img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*[Block(dim, num_heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])
