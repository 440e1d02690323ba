"""Batch inference in half precision: load the exported weights, convert to fp16, classify a test set."""

import argparse

import torch

from langid import CharCNN, LANGS, encode, make_sentences

torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
torch.backends.cudnn.benchmark = True


def load_model(path):
    model = CharCNN()
    model.load_state_dict(torch.load(path))
    return model.half().cuda().eval()


@torch.inference_mode()
def predict(model, ids, batch_size):
    outs = []
    for start in range(0, ids.shape[0], batch_size):
        batch = ids[start : start + batch_size].cuda(non_blocking=True)
        outs.append(model(batch).float())
    return torch.cat(outs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--weights", default="artifacts/langid_fp32.pt")
    p.add_argument("--batch-size", type=int, default=256)
    args = p.parse_args()

    model = load_model(args.weights)
    print(f"serving dtype {next(model.parameters()).dtype}")
    texts, labels = make_sentences(1000, seed=7)
    logits = predict(model, encode(texts), args.batch_size)
    probs = logits.softmax(-1)
    acc = (logits.argmax(-1).cpu() == labels).float().mean().item()
    names = sorted(LANGS)
    print(f"test accuracy {acc:.4f}")
    print(f"mean confidence {probs.max(-1).values.mean().item():.5f}")
    for text, row in list(zip(texts, probs))[:3]:
        print(f"{text!r}: {names[row.argmax().item()]} p={row.max().item():.4f}")
    torch.save(logits.cpu(), "artifacts/test_logits.pt")


if __name__ == "__main__":
    main()
