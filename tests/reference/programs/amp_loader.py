"""CUDA-first training with a pinned-memory DataLoader, GradScaler and fp16 autocast."""

import torch
import torch.nn.functional as F  # noqa: N812 (the usual alias in PyTorch code)
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
features = torch.randn(256, 16)
labels = (features.sum(dim=1) > 0).long()
loader = DataLoader(TensorDataset(features, labels), batch_size=32, shuffle=True, pin_memory=True)
model = torch.nn.Sequential(
    torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Dropout(0.1), torch.nn.Linear(32, 2)
).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scaler = torch.amp.GradScaler("cuda")
for epoch in range(2):
    for xb, yb in loader:
        xb, yb = xb.cuda(non_blocking=True), yb.cuda(non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(xb), yb)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    print(f"epoch {epoch} loss {loss.item():.6f}")
noise = torch.randn(4, 16, device="cuda")
print(f"noise {noise.sum().item():.6f}")
torch.save(model.state_dict(), "model.pt")
