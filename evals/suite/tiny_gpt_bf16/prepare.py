"""Prepare a character-level dataset: synthetic 'recipes' text, encoded to uint16 ids in train.bin / val.bin."""

import os
import pickle
import random

import numpy as np

ING = ["flour", "sugar", "butter", "eggs", "milk", "salt", "yeast", "honey", "apples", "cream"]
ACT = ["mix", "whisk", "fold", "knead", "bake", "chill", "stir", "pour"]
TIME = ["for 5 minutes", "until smooth", "for an hour", "gently", "overnight", "twice"]


def make_text(n_lines: int, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for _ in range(n_lines):
        a, b = rng.sample(ING, 2)
        lines.append(f"{rng.choice(ACT)} the {a} with the {b} {rng.choice(TIME)}.")
    return "\n".join(lines) + "\n"


def main() -> None:
    out_dir = os.path.join(os.path.dirname(__file__), "data")
    os.makedirs(out_dir, exist_ok=True)
    data = make_text(3000, seed=42)
    chars = sorted(set(data))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    n = len(data)
    train_ids = np.array([stoi[c] for c in data[: int(n * 0.9)]], dtype=np.uint16)
    val_ids = np.array([stoi[c] for c in data[int(n * 0.9) :]], dtype=np.uint16)
    train_ids.tofile(os.path.join(out_dir, "train.bin"))
    val_ids.tofile(os.path.join(out_dir, "val.bin"))
    with open(os.path.join(out_dir, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": itos, "stoi": stoi}, f)
    print(f"vocab size {len(chars)}, train {len(train_ids):,} tokens, val {len(val_ids):,} tokens")


if __name__ == "__main__":
    main()
