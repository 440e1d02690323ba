"""Pretrain the backbone on the 8-class source task and save a checkpoint (as it sits on the GPU)."""

import argparse
import os

import torch
import torch.nn.functional as F

from common import Backbone, Classifier, make_task


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--out", default="checkpoints/pretrained.pt")
    args = p.parse_args()

    torch.manual_seed(0)
    x, y = make_task(4096, 8, seed=1)
    x, y = x.cuda(), y.cuda()
    model = Classifier(Backbone(), 8).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(args.steps):
        idx = torch.randint(0, x.shape[0], (128,))
        loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"pretrain step {step} loss {loss.item():.5f}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    torch.save({"backbone": model.backbone.state_dict(), "optimizer": opt.state_dict(), "step": args.steps}, args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
