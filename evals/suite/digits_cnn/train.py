import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import config
from dataset import SyntheticDigits
from model import Net

torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic = True


def train_epoch(model, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(config.DEVICE, non_blocking=True), target.to(config.DEVICE, non_blocking=True)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 8 == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(loader.dataset)}] Loss: {loss.item():.6f}")


@torch.no_grad()
def test(model, loader):
    model.eval()
    test_loss, correct = 0.0, 0
    for data, target in loader:
        data, target = data.to(config.DEVICE, non_blocking=True), target.to(config.DEVICE, non_blocking=True)
        output = model(data)
        test_loss += F.cross_entropy(output, target, reduction="sum").item()
        correct += (output.argmax(dim=1) == target).sum().item()
    test_loss /= len(loader.dataset)
    print(f"Test set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(loader.dataset)} ({100.0 * correct / len(loader.dataset):.1f}%)")
    return test_loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=config.EPOCHS)
    parser.add_argument("--lr", type=float, default=config.LR)
    args = parser.parse_args()

    torch.manual_seed(config.SEED)
    train_set = SyntheticDigits(config.TRAIN_SIZE, seed=config.SEED)
    test_set = SyntheticDigits(config.TEST_SIZE, seed=config.SEED + 1)
    loader_kwargs = {"num_workers": config.NUM_WORKERS, "pin_memory": True}
    train_loader = DataLoader(train_set, batch_size=config.BATCH_SIZE, shuffle=True, **loader_kwargs)
    test_loader = DataLoader(test_set, batch_size=256, shuffle=False, **loader_kwargs)

    model = Net().to(config.DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=config.MOMENTUM)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, args.epochs + 1):
        train_epoch(model, train_loader, optimizer, epoch)
        test(model, test_loader)
        scheduler.step()
    torch.save(model.state_dict(), config.CHECKPOINT)


if __name__ == "__main__":
    main()
