"""A tiny GPT (token + position embedding, pre-LN blocks of causal self-attention and a GELU MLP,
final layer norm, head tied to the token embedding, cross-entropy) and a seeded training step.
Shared by the emulator's parity tests and the emulator benchmark."""

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as nnf


@dataclass(frozen=True)
class GptShape:
    """Model and batch sizes."""

    vocab: int = 64
    context: int = 16
    width: int = 32
    heads: int = 4
    blocks: int = 2
    batch: int = 4


class Block(nn.Module):
    """Pre-LN transformer block: causal self-attention then an MLP, both residual."""

    def __init__(self, shape: GptShape, attention: str) -> None:
        super().__init__()
        self.heads = shape.heads
        self.attention = attention
        self.ln1 = nn.LayerNorm(shape.width)
        self.qkv = nn.Linear(shape.width, 3 * shape.width)
        self.proj = nn.Linear(shape.width, shape.width)
        self.ln2 = nn.LayerNorm(shape.width)
        self.fc = nn.Linear(shape.width, 4 * shape.width)
        self.out = nn.Linear(4 * shape.width, shape.width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        if self.attention == "sdpa":
            attended = nnf.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            scores = q @ k.transpose(-2, -1) / (q.shape[-1] ** 0.5)
            causal = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()
            attended = scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v
        x = x + self.proj(attended.transpose(1, 2).reshape(batch, length, width))
        return x + self.out(nnf.gelu(self.fc(self.ln2(x))))


class TinyGpt(nn.Module):
    """The model; `attention` is "sdpa" or "manual" (matmul + masked softmax)."""

    def __init__(self, shape: GptShape, attention: str = "sdpa") -> None:
        super().__init__()
        self.wte = nn.Embedding(shape.vocab, shape.width)
        self.wpe = nn.Embedding(shape.context, shape.width)
        self.blocks = nn.ModuleList(Block(shape, attention) for _ in range(shape.blocks))
        self.ln_f = nn.LayerNorm(shape.width)
        self.head = nn.Linear(shape.width, shape.vocab, bias=False)
        self.head.weight = self.wte.weight

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.wte(tokens) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        return nnf.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def make_batches(
    shape: GptShape, steps: int, seed: int = 0
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """`steps` (tokens, next-token targets) batches drawn from a seeded CPU generator."""
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(steps):
        data = torch.randint(0, shape.vocab, (shape.batch, shape.context + 1), generator=generator)
        batches.append((data[:, :-1].contiguous(), data[:, 1:].contiguous()))
    return batches


def parameter_count(model: nn.Module) -> int:
    """Distinct parameters (tied weights counted once)."""
    return sum(p.numel() for p in model.parameters())
