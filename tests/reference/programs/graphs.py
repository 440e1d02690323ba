"""torch.compile runs eagerly on the reference; capturing a CUDA graph cannot run on the CPU."""

import torch

model = torch.compile(torch.nn.Linear(2, 2).cuda())
print("compiled", model(torch.ones(1, 2, device="cuda")).device)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    model(torch.ones(1, 2, device="cuda"))
