"""A synthetic corpus: sentences from a small probabilistic grammar, tokenized into word ids."""

import os
import random

import torch

SUBJECTS = ["the cat", "a dog", "my neighbour", "the old man", "a child", "the teacher"]
VERBS = ["sees", "likes", "follows", "finds", "feeds", "calls"]
OBJECTS = ["the ball", "a bird", "the river", "a small house", "the garden", "an apple"]
ENDINGS = ["today", "again", "at night", "in the morning", "with care", ""]


def make_corpus(path, n_sentences, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(n_sentences):
            words = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(ENDINGS)]
            f.write(" ".join(w for w in words if w) + " .\n")


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    def __init__(self, path, seed=1234):
        self.dictionary = Dictionary()
        os.makedirs(path, exist_ok=True)
        for split, n, offset in (("train", 1200, 0), ("valid", 200, 1), ("test", 200, 2)):
            fname = os.path.join(path, f"{split}.txt")
            if not os.path.exists(fname):
                make_corpus(fname, n, seed + offset)
        self.train = self.tokenize(os.path.join(path, "train.txt"))
        self.valid = self.tokenize(os.path.join(path, "valid.txt"))
        self.test = self.tokenize(os.path.join(path, "test.txt"))

    def tokenize(self, path):
        """Tokenizes a text file."""
        with open(path, "r", encoding="utf8") as f:
            idss = []
            for line in f:
                words = line.split() + ["<eos>"]
                ids = [self.dictionary.add_word(word) for word in words]
                idss.append(torch.tensor(ids).type(torch.int64))
        return torch.cat(idss)
