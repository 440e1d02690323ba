"""A CUDA-first script touching every construct the reference runtime maps to the CPU.

Prints one `name value` line per check; the test reads them.
"""

import torch
import torch.nn as nn
import torchport


def show(name, value):
    print(f"{name} {value}")


show("available", torch.cuda.is_available())
show("count", torch.cuda.device_count())
show("current", torch.cuda.current_device())
torch.cuda.set_device(0)
props = torch.cuda.get_device_properties(0)
show("name", torch.cuda.get_device_name(0).replace(" ", "_"))
show("sms", props.multi_processor_count)
show("capability", ".".join(map(str, torch.cuda.get_device_capability())))
show("bf16", torch.cuda.is_bf16_supported())
free, total = torch.cuda.mem_get_info()
show("total_memory", total)

torch.manual_seed(10)
torch.cuda.manual_seed(10)
torch.cuda.manual_seed_all(10)
a = torch.randn(3, device="cuda")
show("randn", " ".join(f"{v:.4f}" for v in a.tolist()))
g = torch.Generator(device="cuda").manual_seed(42)
b = torch.randn(3, generator=g, device=torch.device("cuda"))
show("generator", " ".join(f"{v:.4f}" for v in b.tolist()))
show("generator_is_generator", isinstance(g, torch.Generator))
state = torch.cuda.get_rng_state()
first = torch.rand(4, device="cuda:0")
torch.cuda.set_rng_state(state)
show("rng_state_replay", bool(torch.equal(first, torch.rand(4, device="cuda:0"))))

x = torch.ones(2, 3)
y = x.cuda()
show("is_cuda", y.is_cuda)
show("device", y.device)
show("to_device", x.to("cuda:0").device)
show("to_int", x.to(0).device)
show("cpu_copy", y.cpu().device)
z = y.cpu()
z.add_(1)
show("transfer_copies", float(y.sum()))
m = nn.Linear(3, 2).to(torch.device("cuda"))
show("module_device", next(m.parameters()).device)
out = m(y)
out.sum().backward()
show("grad_device", m.weight.grad.device)
torchport.probe("linear_out", out)
direct = nn.Linear(3, 2, device="cuda")
show("factory_device", direct.weight.device)
try:
    y.numpy()
    show("numpy_guard", False)
except TypeError:
    show("numpy_guard", True)

torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
stream = torch.cuda.Stream()
start.record()
with torch.cuda.stream(stream):
    w = (y @ y.T).sum()
    show("stream_current", torch.cuda.current_stream() == stream)
    side = y * 2
side.record_stream(torch.cuda.current_stream())  # apex-style prefetchers do this
y.record_stream(stream)
show("record_stream", float(side.sum()) == float(2 * y.sum()))
stream.synchronize()
end.record()
end.synchronize()
show("elapsed_ms", start.elapsed_time(end) >= 0)
torch.cuda.nvtx.range_push("block")
torch.cuda.nvtx.range_pop()
with torch.cuda.nvtx.range("ctx"):
    pass
show("memory_allocated", torch.cuda.memory_allocated() > 0)
show("max_memory_allocated", torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated())
show("memory_stats", "allocated_bytes.all.current" in torch.cuda.memory_stats())
torch.cuda.reset_peak_memory_stats()
torch.cuda.empty_cache()

pinned = torch.arange(6.0).pin_memory()
show("pinned", pinned.is_pinned())
moved = pinned.cuda(non_blocking=True)
show("non_blocking", moved.device)
with torch.autocast("cuda"):
    half = m(y)
show("autocast_dtype", half.dtype)
with torch.cuda.amp.autocast(dtype=torch.bfloat16):
    show("cuda_amp_bf16", m(y).dtype)
with torch.amp.autocast("cuda", dtype=torch.float16):
    show("softmax_fp32", torch.softmax(m(y), -1).dtype)

torch.save({"weight": m.weight.detach(), "step": 3}, "ckpt.pt")
loaded = torch.load("ckpt.pt", map_location="cuda")
show("load_cuda", loaded["weight"].device)
loaded_cpu = torch.load("ckpt.pt", map_location="cpu")
show("load_cpu", loaded_cpu["weight"].device)
show("accelerator", torch.accelerator.current_accelerator())
show("version_cuda", torch.version.cuda is not None)
