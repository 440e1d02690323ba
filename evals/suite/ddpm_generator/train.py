"""Train the 2-D DDPM on a two-moons distribution and sample from it, with a seeded CUDA generator."""

import argparse

import torch

from diffusion import EpsModel, GaussianDiffusion


def two_moons(n, generator, noise=0.05):
    u = torch.rand(n, device="cuda", generator=generator) * torch.pi
    upper = torch.rand(n, device="cuda", generator=generator) < 0.5
    x = torch.where(upper, torch.cos(u), 1 - torch.cos(u))
    y = torch.where(upper, torch.sin(u), 0.5 - torch.sin(u))
    pts = torch.stack([x, y], dim=1) + noise * torch.randn(n, 2, device="cuda", generator=generator)
    return (pts - torch.tensor([0.5, 0.25], device="cuda")) * 2


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args()

    torch.manual_seed(args.seed)
    g = torch.Generator(device="cuda")
    g.manual_seed(args.seed)

    data = two_moons(4096, g)
    model = EpsModel().cuda()
    diffusion = GaussianDiffusion(device="cuda")
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(args.steps):
        idx = torch.randint(0, data.shape[0], (args.batch_size,), device="cuda", generator=g)
        loss = diffusion.loss(model, data[idx], g)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.5f}")

    samples = diffusion.sample(model, args.samples, g)
    print(f"sample mean {samples.mean(0).tolist()[0]:.4f} {samples.mean(0).tolist()[1]:.4f}")
    print(f"sample std {samples.std(0).tolist()[0]:.4f} {samples.std(0).tolist()[1]:.4f}")
    print(f"data   std {data.std(0).tolist()[0]:.4f} {data.std(0).tolist()[1]:.4f}")
    torch.save({"samples": samples.cpu(), "model": model.state_dict(), "rng_state": g.get_state()}, "ddpm.pt")


if __name__ == "__main__":
    main()
