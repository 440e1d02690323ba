"""bf16/fp16 log_softmax as CUDA computes it (float accumulation, one rounding at the end)."""

import torch
import torch.nn.functional as F  # noqa: N812 (the usual alias in PyTorch code)

torch.manual_seed(0)
for dtype in (torch.bfloat16, torch.float16):
    logits = (torch.randn(256, 8) * 3).to(dtype)
    on_gpu = F.log_softmax(logits.cuda(), dim=-1).cpu()
    cuda_like = F.log_softmax(logits.float(), dim=-1).to(dtype)
    print(f"{dtype} cuda_like {bool(torch.equal(on_gpu, cuda_like))}")
    on_cpu = F.log_softmax(logits, dim=-1)  # the CPU kernel, with its extra rounding
    print(f"{dtype} cpu_kernel_on_cpu {not torch.equal(on_cpu, cuda_like)}")
labels = torch.randint(0, 8, (256,))
logits = torch.randn(256, 8, device="cuda", requires_grad=True)
with torch.autocast("cuda", dtype=torch.bfloat16):
    loss = F.cross_entropy(logits @ torch.eye(8, device="cuda"), labels.cuda())
expected = F.nll_loss(
    F.log_softmax(logits.detach().bfloat16().float(), -1).bfloat16().float(), labels
)
print(f"cross_entropy_cuda_like {bool(torch.equal(loss.detach().cpu(), expected))}")
