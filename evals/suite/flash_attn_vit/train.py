"""Train the ViT on synthetic 'orientation' images in bf16 autocast, with the fast SDPA kernels forced on."""

import argparse

import torch
import torch.nn.functional as F

import vit
from vit import ViT

# Only allow the fused kernels; the math fallback is far slower on the GPU.
torch.backends.cuda.enable_flash_sdp(True)
torch.backends.cuda.enable_mem_efficient_sdp(True)
torch.backends.cuda.enable_math_sdp(False)


def oriented_bars(n, size=16, seed=0):
    """Images of a bar at one of four orientations (0, 45, 90, 135 degrees), plus clutter noise."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 4, (n,), generator=g)
    yy, xx = torch.meshgrid(torch.arange(size).float(), torch.arange(size).float(), indexing="ij")
    angle = labels.float() * torch.pi / 4
    cy, cx = (torch.rand(n, generator=g) * 6 + 5)[:, None, None], (torch.rand(n, generator=g) * 6 + 5)[:, None, None]
    dist = ((xx - cx) * torch.sin(angle)[:, None, None] - (yy - cy) * torch.cos(angle)[:, None, None]).abs()
    along = ((xx - cx) * torch.cos(angle)[:, None, None] + (yy - cy) * torch.sin(angle)[:, None, None]).abs()
    img = ((dist < 1.0) & (along < 5)).float() + 0.35 * torch.randn(n, size, size, generator=g)
    return img[:, None], labels


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=80)
    p.add_argument("--batch-size", type=int, default=64)
    args = p.parse_args()

    print(f"flash-attn available: {vit.HAS_FLASH_ATTN}")
    torch.manual_seed(0)
    x, y = oriented_bars(2048, seed=1)
    xv, yv = oriented_bars(512, seed=2)
    x, y, xv, yv = x.cuda(), y.cuda(), xv.cuda(), yv.cuda()
    model = ViT().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=args.steps)
    for step in range(args.steps):
        idx = torch.arange(step * args.batch_size, (step + 1) * args.batch_size) % x.shape[0]
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        logits = model(xv).float()
    print(f"val loss {F.cross_entropy(logits, yv).item():.4f} acc {(logits.argmax(1) == yv).float().mean().item():.4f}")
    torch.save(model.state_dict(), "vit.pt")


if __name__ == "__main__":
    main()
