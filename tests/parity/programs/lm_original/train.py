"""A tiny CUDA-first language model: tied embeddings, one attention block, AdamW.

`--amp` trains under torch.cuda.amp (fp16 autocast with a GradScaler), as CUDA code does.
"""

import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F  # noqa: N812 (the usual alias in PyTorch code)

torch.backends.cudnn.benchmark = True


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        x = self.ln1(h)
        scores = self.q(x) @ self.k(x).transpose(-2, -1) * self.scale
        causal = torch.triu(torch.ones(h.shape[1], h.shape[1], device=h.device), diagonal=1).bool()
        scores = scores.masked_fill(causal, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        h = h + self.proj(attn @ self.v(x))
        return h + self.mlp(self.ln2(h))


class TinyLM(nn.Module):
    def __init__(self, vocab: int, dim: int, seq: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(seq, dim) * 0.02)
        self.block = Block(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight
        nn.init.normal_(self.embed.weight, std=0.02)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens) + self.pos[: tokens.shape[1]]
        return self.head(self.block(h))


def batches(steps: int, batch: int, seq: int, vocab: int) -> list[torch.Tensor]:
    """Sequences that follow t -> (5t + 3) mod vocab from random starts: learnable."""
    g = torch.Generator().manual_seed(1)
    out = []
    for _ in range(steps):
        tokens = [torch.randint(0, vocab, (batch,), generator=g)]
        for _ in range(seq):
            tokens.append((tokens[-1] * 5 + 3) % vocab)
        out.append(torch.stack(tokens, dim=1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--amp", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    vocab, dim, seq = 48, 32, 16
    model = TinyLM(vocab, dim, seq).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    for step, data in enumerate(batches(args.steps, 8, seq, vocab)):
        data = data.cuda(non_blocking=True)
        inputs, targets = data[:, :-1], data[:, 1:]
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast(enabled=args.amp):
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item():.6f}")
    torch.cuda.synchronize()
    print(f"peak_mb {torch.cuda.max_memory_allocated() / 2**20:.3f}")
    torch.save(model.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
