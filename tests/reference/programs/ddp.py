"""DDP with NCCL, as CUDA code writes it: one process per GPU under torchrun."""

import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("nccl")
rank = dist.get_rank()
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
device = torch.device("cuda", local_rank)
torch.manual_seed(0)
model = DistributedDataParallel(torch.nn.Linear(8, 1).to(device), device_ids=[local_rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.Generator().manual_seed(rank)
for step in range(3):
    x = torch.randn(16, 8, generator=data).to(device)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"rank {rank} step {step} loss {loss.item():.6f}", flush=True)
total = torch.tensor([float(rank + 1)], device=device)
dist.all_reduce(total)
print(f"rank {rank} allreduce {total.item():.1f} on {total.device}", flush=True)
dist.barrier(device_ids=[local_rank])
if rank == 0:
    torch.save(model.module.state_dict(), "ddp.pt")
dist.destroy_process_group()
