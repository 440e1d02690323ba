"""Train a small MLP classifier on synthetic data with CUDA mixed precision.

A typical CUDA-first script: hard-coded `.cuda()`, `torch.cuda.amp` autocast with a GradScaler,
cuDNN/TF32 switches, CUDA events for timing and CUDA memory statistics.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True


class Classifier(nn.Module):
    def __init__(self, features: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.gelu(self.fc1(x))
        x = F.gelu(self.fc2(x))
        return self.head(x)


def make_data(n: int, features: int, classes: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, features, generator=g) * 0.5
    labels = torch.randint(0, classes, (n,), generator=g)
    x = centers[labels] + torch.randn(n, features, generator=g)
    return x, labels


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    x, y = make_data(2048, 32, 8, seed=1)
    model = Classifier(32, 128, 8).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for step in range(args.steps):
        idx = torch.arange(step * args.batch, (step + 1) * args.batch) % x.shape[0]
        xb, yb = x[idx].cuda(non_blocking=True), y[idx].cuda(non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast():
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    end.record()
    torch.cuda.synchronize()

    with torch.no_grad():
        accuracy = (model(x.cuda()).argmax(dim=1) == y.cuda()).float().mean().item()
    print(f"accuracy {accuracy:.4f}")
    print(f"elapsed_ms {start.elapsed_time(end):.1f}")
    print(f"peak_mem_mb {torch.cuda.max_memory_allocated() / 2**20:.1f}")
    torch.save(model.state_dict(), "classifier.pt")


if __name__ == "__main__":
    main()
