"""Train the language-ID model (fp32) and export its weights for serving."""

import os

import torch
import torch.nn.functional as F

from langid import CharCNN, encode, make_sentences

torch.manual_seed(0)
texts, labels = make_sentences(3000, seed=1)
ids, labels = encode(texts).cuda(), labels.cuda()
model = CharCNN().cuda()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(120):
    idx = torch.arange(step * 64, (step + 1) * 64) % len(texts)
    loss = F.cross_entropy(model(ids[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 40 == 0:
        print(f"train step {step} loss {loss.item():.4f}")
os.makedirs("artifacts", exist_ok=True)
torch.save(model.state_dict(), "artifacts/langid_fp32.pt")
print("exported artifacts/langid_fp32.pt")
