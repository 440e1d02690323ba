"""Overlap host-to-device copies with compute on a side CUDA stream (after NVIDIA's apex ImageNet example)."""

import torch

MEAN = torch.tensor([0.5 * 255, 0.5 * 255, 0.5 * 255]).view(1, 3, 1, 1)
STD = torch.tensor([0.25 * 255, 0.25 * 255, 0.25 * 255]).view(1, 3, 1, 1)


class DataPrefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)
        self.stream = torch.cuda.Stream()
        self.mean = MEAN.cuda()
        self.std = STD.cuda()
        self.preload()

    def preload(self):
        try:
            self.next_input, self.next_target = next(self.loader)
        except StopIteration:
            self.next_input = None
            self.next_target = None
            return
        with torch.cuda.stream(self.stream):
            self.next_input = self.next_input.cuda(non_blocking=True)
            self.next_target = self.next_target.cuda(non_blocking=True)
            self.next_input = self.next_input.float()
            self.next_input = self.next_input.sub_(self.mean).div_(self.std)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        input = self.next_input
        target = self.next_target
        if input is not None:
            input.record_stream(torch.cuda.current_stream())
        if target is not None:
            target.record_stream(torch.cuda.current_stream())
        self.preload()
        return input, target
