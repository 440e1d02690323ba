import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import Gratings
from prefetcher import DataPrefetcher


def make_model(num_classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(32, num_classes),
    )


def train_one_epoch(model, loader, optimizer, epoch):
    model.train()
    prefetcher = DataPrefetcher(loader)
    input, target = prefetcher.next()
    i = 0
    while input is not None:
        torch.cuda.nvtx.range_push(f"iteration {i}")
        torch.cuda.nvtx.range_push("forward")
        output = model(input)
        loss = F.cross_entropy(output, target)
        torch.cuda.nvtx.range_pop()
        optimizer.zero_grad()
        torch.cuda.nvtx.range_push("backward")
        loss.backward()
        torch.cuda.nvtx.range_pop()
        with torch.cuda.nvtx.range("optimizer.step()"):
            optimizer.step()
        if i % 10 == 0:
            print(f"epoch {epoch} iter {i:3d} loss {loss.item():.5f}")
        input, target = prefetcher.next()
        i += 1
        torch.cuda.nvtx.range_pop()


@torch.no_grad()
def validate(model, loader):
    model.eval()
    prefetcher = DataPrefetcher(loader)
    input, target = prefetcher.next()
    correct, total, loss_sum = 0, 0, 0.0
    while input is not None:
        output = model(input)
        loss_sum += F.cross_entropy(output, target, reduction="sum").item()
        correct += (output.argmax(1) == target).sum().item()
        total += target.numel()
        input, target = prefetcher.next()
    print(f"val loss {loss_sum / total:.5f} acc {correct / total:.4f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args()

    torch.manual_seed(3)
    train_loader = DataLoader(Gratings(1280, seed=1), batch_size=args.batch_size, shuffle=True, num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(Gratings(384, seed=2), batch_size=128, num_workers=args.workers, pin_memory=True)
    model = make_model(6).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
    for epoch in range(args.epochs):
        torch.cuda.nvtx.range_push(f"epoch {epoch}")
        train_one_epoch(model, train_loader, optimizer, epoch)
        torch.cuda.nvtx.range_pop()
        validate(model, val_loader)
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
