"""Character-CNN language identification over three synthetic 'languages' with distinct letter statistics."""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F

ALPHABET = "abcdefghijklmnopqrstuvwxyz "
LANGS = {
    "aelvin": ("aeiouly", "lrnvth", 0.55),
    "korran": ("aou", "krgdzx", 0.35),
    "sipti": ("ie", "sptcmf", 0.45),
}
MAX_LEN = 48


def make_word(rng, vowels, consonants, p_vowel):
    return "".join(rng.choice(vowels) if rng.random() < p_vowel else rng.choice(consonants) for _ in range(rng.randint(2, 7)))


def make_sentences(n, seed):
    rng = random.Random(seed)
    names = sorted(LANGS)
    texts, labels = [], []
    for _ in range(n):
        label = rng.randrange(len(names))
        vowels, consonants, p = LANGS[names[label]]
        # borrowed words from another language make some sentences ambiguous
        words = [make_word(rng, *LANGS[names[rng.randrange(3)]]) if rng.random() < 0.3 else make_word(rng, vowels, consonants, p) for _ in range(rng.randint(2, 6))]
        texts.append(" ".join(words)[:MAX_LEN])
        labels.append(label)
    return texts, torch.tensor(labels)


def encode(texts):
    ids = torch.zeros(len(texts), MAX_LEN, dtype=torch.long)
    for i, t in enumerate(texts):
        ids[i, : len(t)] = torch.tensor([ALPHABET.index(c) + 1 for c in t])
    return ids


class CharCNN(nn.Module):
    def __init__(self, vocab=len(ALPHABET) + 1, dim=32, channels=64, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(dim, channels, k, padding=k // 2) for k in (2, 3, 4)])
        self.fc = nn.Linear(3 * channels, 64)
        self.out = nn.Linear(64, classes)

    def forward(self, ids):
        x = self.embed(ids).transpose(1, 2)
        feats = [F.relu(conv(x)).amax(dim=-1) for conv in self.convs]
        return self.out(F.relu(self.fc(torch.cat(feats, dim=1))))
