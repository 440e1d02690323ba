"""Data-parallel training over NCCL. Launch: torchrun --nproc_per_node=2 train_ddp.py"""

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from dataset import SpiralDataset


def setup():
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return dist.get_rank(), dist.get_world_size(), local_rank


def build_model():
    return nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 3))


def reduce_mean(value: torch.Tensor) -> torch.Tensor:
    value = value.clone()
    dist.all_reduce(value, op=dist.ReduceOp.SUM)
    return value / dist.get_world_size()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=64, help="per-GPU batch size")
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()

    rank, world_size, local_rank = setup()
    torch.manual_seed(42)  # same init on every rank; DDP also broadcasts rank 0's weights
    model = build_model().cuda(local_rank)
    model = DDP(model, device_ids=[local_rank], output_device=local_rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * world_size, momentum=0.9)

    train_set = SpiralDataset(2048, seed=1)
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, pin_memory=True)
    val = SpiralDataset(512, seed=2)
    val_x, val_y = val.x.cuda(local_rank), val.y.cuda(local_rank)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        total = torch.zeros(2, device=f"cuda:{local_rank}")
        for x, y in loader:
            x, y = x.cuda(local_rank, non_blocking=True), y.cuda(local_rank, non_blocking=True)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += torch.stack([loss.detach() * len(y), torch.tensor(float(len(y)), device=loss.device)])
        dist.all_reduce(total)
        model.eval()
        with torch.no_grad():
            acc = reduce_mean((model(val_x).argmax(1) == val_y).float().mean())
        if rank == 0:
            print(f"epoch {epoch} world {world_size} train_loss {(total[0] / total[1]).item():.5f} val_acc {acc.item():.4f}")

    if rank == 0:
        torch.save(model.module.state_dict(), "ddp_model.pt")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
