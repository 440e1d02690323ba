"""Fit GP hyperparameters by maximising the marginal likelihood (Adam), then predict on held-out points."""

import argparse

import torch

from gp import ExactGP

torch.set_default_dtype(torch.float64)


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.sort(torch.rand(n, generator=g) * 10).values
    y = torch.sin(2 * torch.pi * x / 1.5) * torch.exp(-0.05 * x) + 0.3 * torch.cos(0.7 * x) + 0.1 * torch.randn(n, generator=g)
    return x, y


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n-train", type=int, default=300)
    p.add_argument("--iters", type=int, default=60)
    p.add_argument("--lr", type=float, default=0.05)
    args = p.parse_args()

    device = torch.device("cuda")
    x, y = make_data(args.n_train + 100, seed=0)
    x, y = x.to(device, dtype=torch.float64), y.to(device, dtype=torch.float64)
    train_x, train_y, test_x, test_y = x[: args.n_train], y[: args.n_train], x[args.n_train :], y[args.n_train :]

    model = ExactGP(train_x, train_y).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for i in range(args.iters):
        opt.zero_grad()
        nll = model.neg_log_marginal_likelihood()
        nll.backward()
        opt.step()
        if i % 10 == 0 or i == args.iters - 1:
            print(f"iter {i:3d} nll {nll.item():.8f} noise {model.noise.item():.6f}")

    mean, var = model.predict(test_x)
    rmse = (mean - test_y).pow(2).mean().sqrt().item()
    nlpd = (0.5 * torch.log(2 * torch.pi * var) + 0.5 * (test_y - mean) ** 2 / var).mean().item()
    print(f"test rmse {rmse:.8f} nlpd {nlpd:.8f}")
    print(f"hyper lengthscale {torch.nn.functional.softplus(model.raw_lengthscale).item():.6f} period {torch.nn.functional.softplus(model.raw_period).item():.6f}")
    torch.save({"mean": mean.cpu(), "var": var.cpu()}, "predictions.pt")


if __name__ == "__main__":
    main()
