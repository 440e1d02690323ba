"""Greedy generation with the tiny LLaMA (random weights from a fixed seed), Triton kernels on the GPU."""

import argparse

import torch

import config
from model import ModelArgs, Transformer


@torch.no_grad()
def generate(model, prompt, max_new_tokens):
    tokens = prompt
    for _ in range(max_new_tokens):
        logits = model(tokens[:, -model.args.max_seq_len :])
        next_token = logits[:, -1].argmax(-1, keepdim=True)
        tokens = torch.cat([tokens, next_token], dim=1)
    return tokens, logits


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokens", type=int, default=12)
    p.add_argument("--batch", type=int, default=2)
    args = p.parse_args()

    torch.manual_seed(config.SEED)
    model = Transformer(ModelArgs())
    for name, param in model.named_parameters():
        if name.endswith("norm.weight"):  # as if trained: norms away from 1
            torch.nn.init.uniform_(param, 0.5, 1.5)
    model = model.to(config.DEVICE).eval()
    prompt = torch.randint(0, 256, (args.batch, 8)).cuda()
    out, last_logits = generate(model, prompt, args.tokens)
    for row in out.tolist():
        print("tokens " + " ".join(str(t) for t in row))
    print(f"logits checksum {last_logits.double().sum().item():.6f} max {last_logits.max().item():.6f}")
    torch.save({"tokens": out.cpu(), "last_logits": last_logits.cpu()}, "generation.pt")


if __name__ == "__main__":
    main()
