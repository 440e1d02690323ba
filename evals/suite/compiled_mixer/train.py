"""Train the Mixer with torch.compile (max-autotune + CUDA graphs) on synthetic shapes."""

import argparse
import time

import torch
import torch._inductor.config as inductor_config
import torch.nn.functional as F

from mixer import Mixer

torch.set_float32_matmul_precision("high")
inductor_config.coordinate_descent_tuning = True
inductor_config.triton.cudagraphs = True
inductor_config.triton.unique_kernel_names = True


def shapes_dataset(n, size=16, seed=0):
    """Five classes of filled shapes (square, disc, cross, ring, stripe) with random position and colour."""
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    labels = torch.randint(0, 5, (n,), generator=g)
    cy = torch.randint(5, size - 5, (n,), generator=g)[:, None, None]
    cx = torch.randint(5, size - 5, (n,), generator=g)[:, None, None]
    dy, dx = (yy - cy).abs(), (xx - cx).abs()
    dist = ((yy - cy) ** 2 + (xx - cx) ** 2).float().sqrt()
    masks = torch.stack([
        (dy <= 3) & (dx <= 3),
        dist <= 3.5,
        ((dy <= 1) & (dx <= 4)) | ((dx <= 1) & (dy <= 4)),
        (dist >= 2.0) & (dist <= 4.0),
        (dy <= 1) & (dx <= 5),
    ], dim=1)[torch.arange(n), labels]
    colour = torch.rand(n, 3, 1, 1, generator=g) * 0.7 + 0.3
    images = masks[:, None].float() * colour + 0.15 * torch.randn(n, 3, size, size, generator=g)
    return images, labels


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=48)
    p.add_argument("--compile-mode", default="max-autotune", choices=["default", "reduce-overhead", "max-autotune"])
    args = p.parse_args()

    torch.manual_seed(0)
    x, y = shapes_dataset(1536, seed=1)
    x_val, y_val = shapes_dataset(384, seed=2)
    x, y, x_val, y_val = x.cuda(), y.cuda(), x_val.cuda(), y_val.cuda()

    model = Mixer().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    compiled = torch.compile(model, mode=args.compile_mode, fullgraph=True)

    t0 = time.perf_counter()
    for step in range(args.steps):
        idx = torch.arange(step * args.batch_size, (step + 1) * args.batch_size, device="cuda") % x.shape[0]
        loss = F.cross_entropy(compiled(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.5f}")
    torch.cuda.synchronize()
    print(f"train time {time.perf_counter() - t0:.1f}s (includes compilation)")

    with torch.no_grad():
        logits = compiled(x_val)
    print(f"val loss {F.cross_entropy(logits, y_val).item():.5f} acc {(logits.argmax(1) == y_val).float().mean().item():.4f}")
    torch.save(model.state_dict(), "mixer.pt")


if __name__ == "__main__":
    main()
