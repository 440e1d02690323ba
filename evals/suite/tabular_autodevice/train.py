"""Fit a residual MLP to the synthetic house-price table, with early stopping on validation."""

import argparse
import os
import random

import numpy as np
import torch
import torch.nn.functional as F

from data import Standardizer, make_table
from model import TabularRegressor

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def evaluate(model, x, y, y_scale):
    model.eval()
    with torch.no_grad():
        pred = model(x)
        rmse = torch.sqrt(F.mse_loss(pred * y_scale, y * y_scale)).item()
    model.train()
    return rmse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--patience", type=int, default=4)
    parser.add_argument("--out", default="checkpoints")
    args = parser.parse_args()

    seed_everything(0)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    print(f"Using device: {device}")

    features, price = make_table(2800, seed=11)
    x = torch.from_numpy(features).to(device)
    y = torch.from_numpy(price).to(device)
    n_train, n_val = 2000, 400
    scaler = Standardizer().fit(x[:n_train])
    x = scaler(x)
    y_mean, y_scale = y[:n_train].mean(), y[:n_train].std()
    y = (y - y_mean) / y_scale

    model = TabularRegressor(x.shape[1]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    os.makedirs(args.out, exist_ok=True)
    best, bad_epochs = float("inf"), 0
    for epoch in range(args.epochs):
        perm = torch.randperm(n_train)
        running = 0.0
        for start in range(0, n_train, args.batch_size):
            idx = perm[start : start + args.batch_size]
            loss = F.mse_loss(model(x[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item() * len(idx)
        scheduler.step()
        val_rmse = evaluate(model, x[n_train : n_train + n_val], y[n_train : n_train + n_val], y_scale)
        print(f"epoch {epoch:02d} train_mse {running / n_train:.5f} val_rmse {val_rmse:.4f}")
        if val_rmse < best:
            best, bad_epochs = val_rmse, 0
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, os.path.join(args.out, "best.pt"))
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                print(f"early stop at epoch {epoch}")
                break

    state = torch.load(os.path.join(args.out, "best.pt"), map_location=device)
    model.load_state_dict(state["model"])
    test_rmse = evaluate(model, x[n_train + n_val :], y[n_train + n_val :], y_scale)
    print(f"best val_rmse {best:.4f} test_rmse {test_rmse:.4f}")


if __name__ == "__main__":
    main()
