"""Fine-tune a pretrained backbone on a shifted 4-class task: linear probe first, then the whole model."""

import argparse

import torch
import torch.nn.functional as F

from common import Backbone, Classifier, make_task


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", default="checkpoints/pretrained.pt")
    p.add_argument("--probe-steps", type=int, default=40)
    p.add_argument("--full-steps", type=int, default=40)
    args = p.parse_args()

    checkpoint = torch.load(args.ckpt, map_location="cuda")
    backbone = Backbone().cuda()
    backbone.load_state_dict(checkpoint["backbone"])
    print(f"loaded backbone pretrained for {checkpoint['step']} steps")

    torch.manual_seed(1)
    x, y = make_task(1024, 4, seed=2, shift=0.5)
    x_test, y_test = make_task(512, 4, seed=3, shift=0.5)
    x, y, x_test, y_test = x.to("cuda:0"), y.to("cuda:0"), x_test.to("cuda:0"), y_test.to("cuda:0")
    model = Classifier(backbone, 4).cuda()

    for p_ in model.backbone.parameters():
        p_.requires_grad_(False)
    opt = torch.optim.SGD(model.head.parameters(), lr=0.1, momentum=0.9)
    for step in range(args.probe_steps):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"linear probe loss {loss.item():.5f} test_acc {accuracy(model, x_test, y_test):.4f}")

    for p_ in model.backbone.parameters():
        p_.requires_grad_(True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    for step in range(args.full_steps):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            print(f"finetune step {step} loss {loss.item():.5f}")
    print(f"finetuned test_acc {accuracy(model, x_test, y_test):.4f}")
    torch.save(model.state_dict(), "checkpoints/finetuned.pt")

    # resume check: the saved model reloads onto the GPU and predicts the same
    reloaded = Classifier(Backbone(), 4)
    reloaded.load_state_dict(torch.load("checkpoints/finetuned.pt", map_location=lambda storage, loc: storage.cuda(0)))
    reloaded = reloaded.cuda()
    print(f"reloaded test_acc {accuracy(reloaded, x_test, y_test):.4f}")


if __name__ == "__main__":
    main()
