"""Distil a fixed random 'teacher' mapping into the mapping network (a smoke-sized StyleGAN2 component)."""

import argparse

import torch
import torch.nn.functional as F

import config
from model import MappingNetwork


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=config.STEPS)
    p.add_argument("--batch", type=int, default=config.BATCH)
    args = p.parse_args()

    device = config.DEVICE
    torch.manual_seed(0)
    teacher = MappingNetwork(n_layers=3, lr_mul=1.0).to(device).requires_grad_(False)
    student = MappingNetwork(n_layers=4, lr_mul=0.1).to(device)
    opt = torch.optim.Adam(student.parameters(), lr=0.01, betas=(0.0, 0.99))

    g = torch.Generator().manual_seed(1)
    z_val = torch.randn(512, 32, generator=g).to(device)
    for step in range(args.steps):
        z = torch.randn(args.batch, 32, generator=g).to(device)
        loss = F.mse_loss(student(z), teacher(z))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0:
            print(f"step {step:4d} distill_loss {loss.item():.6f}")
    with torch.no_grad():
        val = F.mse_loss(student(z_val), teacher(z_val)).item()
        w = student(z_val)
    print(f"val distill_loss {val:.6f} w_mean {w.mean().item():.6f} w_std {w.std().item():.6f}")
    torch.save(student.state_dict(), "mapping.pt")


if __name__ == "__main__":
    main()
