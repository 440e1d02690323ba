"""Per-rule fixtures: sources that must be reported under a rule and near misses that must not.

Each source is a complete module. Negative sources are the closest correct code: the migrated
form, a guarded use, a look-alike in a string, comment or docstring, or a CPU-only variant.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleCase:
    """Sources with (`positive`) and without (`negative`) a finding of one rule."""

    positive: tuple[str, ...]
    negative: tuple[str, ...]


def _case(positive: str | tuple[str, ...], negative: str | tuple[str, ...]) -> RuleCase:
    as_tuple = lambda value: value if isinstance(value, tuple) else (value,)  # noqa: E731
    return RuleCase(as_tuple(positive), as_tuple(negative))


DA_DEVICE = (
    'DEVICE = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")\n'
)

CASES: dict[str, RuleCase] = {
    "TP001": _case(
        (
            'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
            'import torch\ndevice = "cpu" if not torch.cuda.is_available() else "cuda"\n',
            "import torch\nif torch.cuda.is_available():\n    device = 'cuda'\nelse:\n"
            "    device = 'cpu'\n",
        ),
        (
            "import torch\n" + DA_DEVICE,
            'import torch\ndevice = torch.device("cuda" if args.gpu else "cpu")\n',
        ),
    ),
    "TP002": _case(
        (
            "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n",
            "def f(x, rank):\n    return x.cuda(rank, non_blocking=True)\n",
        ),
        (
            "import torch\n" + DA_DEVICE + "model = torch.nn.Linear(2, 2).to(DEVICE)\n",
            "import torch\nif torch.cuda.is_available():\n    model = model.cuda()\n",
            '"""Call x.cuda() to move it."""\n# x.cuda()\nprint("x.cuda()")\n',
            "def f(m):\n    return m.cpu()\n",
        ),
    ),
    "TP003": _case(
        (
            'import torch\nx = torch.zeros(2, device="cuda")\n',
            'import torch\nd = torch.device(f"cuda:{rank}")\n',
            "import torch\nd = torch.device('cuda', 1)\n",
            'dev = "cuda:0"\ny = x.to(dev)\n',
            'config = {"device": "cuda", "lr": 0.1}\n',
            'import argparse\np = argparse.ArgumentParser()\np.add_argument("--device", default="cuda")\n',
            'def train(model, device="cuda"):\n    return model.to(device)\n',
        ),
        (
            'print("running on cuda")\nname = "cuda"\n',
            'import torch\nx = torch.zeros(2, device="cpu")\n',
            '"""cuda"""\n',
            'choices = ["cuda", "cpu"]\n',
        ),
    ),
    "TP004": _case(
        (
            "import torch\nif torch.cuda.is_available():\n    model = model.half()\n",
            "def f(x):\n    assert x.is_cuda\n",
            'def f(x):\n    if x.device.type == "cuda":\n        return fast(x)\n    return slow(x)\n',
            "import torch\nloader = DataLoader(ds, pin_memory=torch.cuda.is_available())\n",
        ),
        (
            "import torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n",
            "import torch\nif torch.accelerator.is_available():\n    model = model.half()\n",
            "import torch\n" + DA_DEVICE + 'ids = [0] if DEVICE.type == "cuda" else None\n',
            "import torch\ntorch.cuda.is_available() and torch.cuda.empty_cache()\n",
        ),
    ),
    "TP005": _case(
        "import torch\nworld = torch.cuda.device_count()\n",
        "import torch\nworld = torch.accelerator.device_count()\n",
    ),
    "TP006": _case(
        "import torch\ntorch.cuda.set_device(3)\n",
        "import torch\nif torch.accelerator.is_available():\n    torch.accelerator.set_device_index(3)\n",
    ),
    "TP007": _case(
        "from torch.cuda import current_device\nindex = current_device()\n",
        "import torch\nindex = torch.accelerator.current_device_index()\n",
    ),
    "TP008": _case(
        "import torch\nwith torch.cuda.device(1):\n    pass\n",
        "import torch\nwith torch.accelerator.device_index(1):\n    pass\n",
    ),
    "TP009": _case(
        'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n',
        'import os\nos.environ["NEURON_RT_VISIBLE_CORES"] = "0-1"\nprint("see CUDA_VISIBLE_DEVICES docs")\n',
    ),
    "TP010": _case(
        (
            "import torch\ny = x.type(torch.cuda.FloatTensor)\n",
            'import torch\ntorch.set_default_tensor_type("torch.cuda.FloatTensor")\n',
        ),
        (
            "import torch\ny = x.type(torch.FloatTensor)\n",
            'import torch\ntorch.set_default_tensor_type("torch.FloatTensor")\n',
        ),
    ),
    "TP011": _case(
        "import torch\nmask = torch.cuda.BoolTensor([True, False])\n",
        "import torch\nmask = torch.tensor([True, False], dtype=torch.bool)\n",
    ),
    "TP012": _case(
        (
            "import torch\nname = torch.cuda.get_device_name(0)\n",
            "import torch\nbf16 = torch.cuda.is_bf16_supported()\n",
        ),
        "import torch\nprops = torch.get_device_module('cpu')\n",
    ),
    "TP019": _case(
        ("import torch\ntorch.cuda.ipc_collect()\n", "import torch\nbackend = torch.cuda\n"),
        (
            "import torch\nif torch.cuda.is_available():\n    torch.cuda.ipc_collect()\n",
            "def f():\n    torch = object()\n    return torch.cuda.ipc_collect()\n",
        ),
    ),
    "TP020": _case(
        (
            "import torch\ntorch.cuda.manual_seed_all(0)\n",
            "import torch.cuda as tc\ntc.manual_seed(7)\n",
        ),
        "import torch\ntorch.manual_seed(0)\n",
    ),
    "TP021": _case(
        'import torch\ng = torch.Generator(device="cuda")\n',
        (
            'import torch\ng = torch.Generator(device="cpu")\n',
            "import torch\ng = torch.Generator()\n",
        ),
    ),
    "TP022": _case(
        "import torch\nstate = torch.cuda.get_rng_state_all()\n",
        "import torch\nstate = torch.get_rng_state()\n",
    ),
    "TP030": _case(
        (
            "import torch\nwith torch.cuda.amp.autocast():\n    pass\n",
            "from torch.cuda.amp import autocast\nwith autocast(dtype=torch.bfloat16):\n    pass\n",
            'import torch\nwith torch.autocast("cuda", dtype=torch.float16):\n    pass\n',
            'import torch\n@torch.autocast(device_type="cuda")\ndef f(x):\n    return x\n',
        ),
        (
            "import torch\n"
            + DA_DEVICE
            + "with torch.amp.autocast(device_type=DEVICE.type):\n    pass\n",
            'import torch\nwith torch.autocast("cpu", dtype=torch.bfloat16):\n    pass\n',
        ),
    ),
    "TP031": _case(
        "import torch\nwith torch.autocast(device_type=d.type, dtype=torch.float16):\n    pass\n",
        "import torch\nwith torch.autocast(device_type=d.type, dtype=torch.bfloat16):\n    pass\n",
    ),
    "TP032": _case(
        (
            "import torch\nscaler = torch.cuda.amp.GradScaler()\n",
            'import torch\nscaler = torch.amp.GradScaler("cuda", enabled=True)\n',
            "from torch.amp import GradScaler\nscaler = GradScaler()\n",
        ),
        "import torch\nloss.backward()\nopt.step()\n",
    ),
    "TP033": _case(
        (
            "import torch\nscaler = torch.cuda.amp.GradScaler()\nscaler.scale(loss).backward()\n"
            "scaler.step(opt)\nscaler.update()\n"
        ),
        "import torch\nloss.backward()\nopt.step()\nother.update()\n",
    ),
    "TP034": _case(
        (
            "import torch\n@torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)\ndef f(ctx, x):\n"
            "    return x\n",
            "from torch.cuda.amp import custom_bwd\n@custom_bwd\ndef g(ctx, x):\n    return x\n",
        ),
        "import torch\n@torch.amp.custom_fwd(device_type='cpu')\ndef f(ctx, x):\n    return x\n",
    ),
    "TP035": _case(
        (
            "from apex import amp\nmodel, opt = amp.initialize(model, opt, opt_level='O1')\n",
            "import apex\nwith apex.amp.scale_loss(loss, opt) as scaled:\n    scaled.backward()\n",
        ),
        "try:\n    from apex import amp\nexcept ImportError:\n    amp = None\n",
    ),
    "TP050": _case(
        (
            "import torch\ntorch.backends.cudnn.benchmark = True\n",
            "import torch.backends.cudnn as cudnn\ncudnn.deterministic = True\n",
        ),
        (
            "import torch\nif torch.cuda.is_available():\n    torch.backends.cudnn.benchmark = True\n",
            "import torch\nflag = torch.backends.cudnn.benchmark\n",
        ),
    ),
    "TP051": _case(
        (
            "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
            "import torch\ntorch.backends.cudnn.allow_tf32 = False\n",
        ),
        'import torch\ntorch.set_float32_matmul_precision("high")\n',
    ),
    "TP052": _case(
        (
            "from torch.nn.attention import SDPBackend, sdpa_kernel\n"
            "with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n    pass\n",
            "import torch\nwith torch.backends.cuda.sdp_kernel(enable_math=False):\n    pass\n",
        ),
        (
            "from torch.nn.attention import SDPBackend, sdpa_kernel\n"
            "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):\n    pass\n",
            "import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True):\n    pass\n",
        ),
    ),
    "TP053": _case(
        (
            "import torch\n"
            "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False\n",
            "import torch\ntorch.backends.cuda.enable_flash_sdp(False)\n",
        ),
        "import torch\nx = torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction\n",
    ),
    "TP060": _case(
        (
            "import torch\ntorch.cuda.synchronize()\n",
            "from torch.cuda import synchronize\nsynchronize()\n",
        ),
        (
            "import torch\nif torch.accelerator.is_available():\n    torch.accelerator.synchronize()\n",
            "import torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n",
        ),
    ),
    "TP061": _case(
        "import torch\nstart = torch.cuda.Event(enable_timing=True)\n",
        "import time\nstart = time.perf_counter()\n",
    ),
    "TP062": _case(
        (
            "import torch\ns = torch.cuda.Stream()\n",
            "import torch\nwith torch.cuda.stream(s):\n    pass\n",
            "def f(x, s):\n    x.record_stream(s)\n",
        ),
        "import torch\ns = torch.accelerator.current_stream()\n",
    ),
    "TP063": _case(
        (
            'import torch\nwith torch.cuda.nvtx.range("step"):\n    pass\n',
            'import torch\ntorch.cuda.nvtx.range_push("step")\n',
        ),
        'import torch\nwith torch.profiler.record_function("step"):\n    pass\n',
    ),
    "TP064": _case(
        (
            "import torch\ng = torch.cuda.CUDAGraph()\n",
            "import torch\nwith torch.cuda.graph(g):\n    pass\n",
        ),
        "import torch\ng = torch.compile(model)\n",
    ),
    "TP065": _case(
        (
            "from torch.profiler import ProfilerActivity\nacts = [ProfilerActivity.CUDA]\n",
            "import torch\nwith torch.autograd.profiler.profile(use_cuda=True):\n    pass\n",
        ),
        "from torch.profiler import ProfilerActivity\nacts = [ProfilerActivity.CPU]\n",
    ),
    "TP080": _case(
        (
            "import torch\npeak = torch.cuda.max_memory_allocated() / 2**20\n",
            "import torch\ntorch.cuda.reset_peak_memory_stats()\n",
        ),
        "import torch\npeak = torch.accelerator.memory.max_memory_allocated()\n",
    ),
    "TP081": _case(
        "import gc\nimport torch\ngc.collect()\ntorch.cuda.empty_cache()\n",
        "import torch\nif torch.cuda.is_available():\n    torch.cuda.empty_cache()\n",
    ),
    "TP082": _case(
        "import torch\nfree, total = torch.cuda.mem_get_info()\n",
        "import torch\nfree, total = torch.accelerator.memory.get_memory_info()\n",
    ),
    "TP083": _case(
        "import torch\nprint(torch.cuda.memory_summary())\n",
        "import torch\nprint(torch.accelerator.memory.memory_stats())\n",
    ),
    "TP084": _case(
        "import torch\ntorch.cuda.set_per_process_memory_fraction(0.5)\n",
        "import torch\nif torch.cuda.is_available():\n    torch.cuda.set_per_process_memory_fraction(0.5)\n",
    ),
    "TP090": _case(
        (
            "from torch.utils.data import DataLoader\nloader = DataLoader(ds, pin_memory=True)\n",
            'from torch.utils.data import DataLoader\nloader = DataLoader(ds, pin_memory_device="cuda")\n',
        ),
        (
            "import torch\nloader = DataLoader(ds, pin_memory=torch.accelerator.is_available())\n",
            "loader = DataLoader(ds, pin_memory=False)\n",
        ),
    ),
    "TP091": _case(
        "def f(batch):\n    return batch.pin_memory()\n",
        "import torch\ndef f(batch):\n"
        "    return batch.pin_memory() if torch.accelerator.is_available() else batch\n",
    ),
    "TP100": _case(
        (
            'import torch.distributed as dist\ndist.init_process_group(backend="nccl")\n',
            'import torch.distributed as dist\ndist.init_process_group("nccl", init_method="env://")\n',
            'BACKEND = "nccl"\n',
        ),
        (
            "import torch.distributed as dist\nimport torch\n"
            + DA_DEVICE
            + "dist.init_process_group(backend=dist.get_default_backend_for_device(DEVICE))\n",
            'import torch.distributed as dist\ndist.init_process_group(backend="gloo")\nprint("nccl")\n',
        ),
    ),
    "TP101": _case(
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "model = DDP(model, device_ids=[rank], output_device=rank)\n",
        (
            "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model)\n",
            "from torch.nn.parallel import DistributedDataParallel as DDP\nimport torch\n"
            + DA_DEVICE
            + 'model = DDP(model, device_ids=[rank] if DEVICE.type == "cuda" else None)\n',
        ),
    ),
    "TP102": _case(
        "import torch.nn as nn\nmodel = nn.DataParallel(model)\n",
        "import torch.nn as nn\nmodel = nn.Sequential(model)\n",
    ),
    "TP103": _case(
        "import torch.nn as nn\nmodel = nn.SyncBatchNorm.convert_sync_batchnorm(model)\n",
        "import torch.nn as nn\nlayer = nn.BatchNorm2d(3)\n",
    ),
    "TP104": _case(
        (
            "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\nm = FSDP(m)\n",
            "from torch.distributed.tensor.parallel import parallelize_module\n"
            "parallelize_module(m, mesh, plan)\n",
        ),
        "import torch.nn as nn\nm = nn.Identity()\n",
    ),
    "TP105": _case(
        (
            "import torch.multiprocessing as mp\nmp.spawn(train, nprocs=4)\n",
            'import multiprocessing\nmultiprocessing.set_start_method("fork")\n',
        ),
        'import multiprocessing\nmultiprocessing.set_start_method("spawn")\n',
    ),
    "TP106": _case(
        (
            'import os\nos.environ["NCCL_DEBUG"] = "INFO"\n',
            'import os\nos.environ.setdefault("NCCL_P2P_DISABLE", "1")\n',
        ),
        'import os\nos.environ["GLOO_SOCKET_IFNAME"] = "eth0"\n',
    ),
    "TP120": _case(
        (
            'import torch\nstate = torch.load("a.pt", map_location="cuda:0")\n',
            'import torch\nstate = torch.load("a.pt", map_location={"cuda:1": "cuda:0"})\n',
        ),
        'import torch\nstate = torch.load("a.pt", map_location="cpu")\n',
    ),
    "TP121": _case(
        'import torch\nstate = torch.load("a.pt")\n',
        (
            'import torch\nstate = torch.load("a.pt", map_location="cpu")\n',
            "import json\njson.load(f)\n",
        ),
    ),
    "TP130": _case(
        'import torch\nm = torch.compile(model, mode="max-autotune")\n',
        (
            "import torch\nm = torch.compile(model)\n",
            'import torch\nm = torch.compile(model, mode="default")\n',
        ),
    ),
    "TP131": _case(
        'import torch\nm = torch.compile(model, backend="inductor")\n',
        'import torch\nm = torch.compile(model, backend="eager")\n',
    ),
    "TP132": _case(
        (
            "import torch\n@torch.compile\n@torch.inference_mode()\ndef f(x):\n    return x\n",
            "import torch\n@torch.inference_mode()\ndef f(x):\n    return x\ng = torch.compile(f)\n",
        ),
        (
            "import torch\n@torch.inference_mode()\ndef f(x):\n    return x\n",
            "import torch\n@torch.compile\n@torch.no_grad()\ndef f(x):\n    return x\n",
        ),
    ),
    "TP133": _case(
        "import torch\ntorch._inductor.config.triton.cudagraphs = True\n",
        "import torch\ntorch._inductor.config.fx_graph_cache = True\n",
    ),
    "TP140": _case(
        "import triton\n@triton.jit\ndef kernel(x_ptr):\n    pass\n",
        "import torch\n@torch.compile\ndef kernel(x):\n    return x\n",
    ),
    "TP141": _case(
        "import triton\n@triton.jit\ndef kernel(x_ptr):\n    pass\nkernel[(4,)](x)\n",
        "table = {}\nfn = table[(4,)](x)\n",
    ),
    "TP142": _case(
        ("import triton\n", "import triton.language as tl\n", "from triton import language\n"),
        "try:\n    import triton\nexcept ImportError:\n    triton = None\n",
    ),
    "TP143": _case(
        (
            'from torch.utils.cpp_extension import load\next = load(name="k", sources=["k.cpp", "k.cu"])\n',
            "from torch.utils.cpp_extension import CUDAExtension\next = CUDAExtension('k', ['k.cpp'])\n",
            "from torch.utils.cpp_extension import load_inline\n"
            "ext = load_inline(name='k', cpp_sources=src, cuda_sources=cu)\n",
        ),
        'from torch.utils.cpp_extension import load\next = load(name="k", sources=["k.cpp"])\n',
    ),
    "TP144": _case(
        "__global__ void add_kernel(const float* x, float* y, int n) {}\n",
        'KERNEL = "__global__ void add_kernel(float* x) {}"\n',
    ),
    "TP145": _case(
        (
            'import torch\n@torch.library.impl("mylib::op", "CUDA")\ndef op(x):\n    return x\n',
            'import torch\nlib.impl("op", op_cuda, "CUDA")\n',
        ),
        'import torch\n@torch.library.impl("mylib::op", "CPU")\ndef op(x):\n    return x\n',
    ),
    "TP150": _case(
        (
            "from flash_attn import flash_attn_func\n",
            "import flash_attn\no = flash_attn.flash_attn_varlen_func(q, k, v, cu, cu, 8, 8)\n",
        ),
        "try:\n    from flash_attn import flash_attn_func\nexcept ImportError:\n    flash_attn_func = None\n",
    ),
    "TP151": _case(
        "import xformers.ops as xops\no = xops.memory_efficient_attention(q, k, v)\n",
        "import torch.nn.functional as F\no = F.scaled_dot_product_attention(q, k, v)\n",
    ),
    "TP152": _case(
        (
            "from apex.optimizers import FusedAdam\nopt = FusedAdam(params, lr=1e-3)\n",
            "from apex.normalization import FusedLayerNorm\nnorm = FusedLayerNorm(64)\n",
        ),
        "import torch\nopt = torch.optim.AdamW(params, lr=1e-3)\n",
    ),
    "TP153": _case(
        "import bitsandbytes as bnb\nopt = bnb.optim.AdamW8bit(params)\n",
        "import torch\nopt = torch.optim.AdamW(params)\n",
    ),
    "TP154": _case("import cupy as cp\n", "import numpy as np\n"),
    "TP155": _case(("import pynvml\n", "from pynvml import nvmlInit\n"), "import psutil\n"),
    "TP156": _case(
        (
            "import tensorrt as trt\n",
            "from mamba_ssm import Mamba\n",
            "import nvidia.dali.fn as fn\n",
        ),
        ("import tensorflow as tf\n", "import nvidia_models_unrelated\n"),
    ),
    "TP170": _case(
        (
            "import torch\nx = torch.zeros(3, dtype=torch.float64)\n",
            "def f(x):\n    return x.double()\n",
            "import torch\ntorch.set_default_dtype(torch.double)\n",
        ),
        (
            "import torch\nif x.dtype == torch.float64:\n    pass\n",
            "import torch\nnames = {torch.float64: 'f64'}\n",
            "import torch\nx = torch.zeros(3, dtype=torch.float32)\n",
        ),
    ),
    "TP171": _case(
        (
            "import numpy as np\nimport torch\nx = torch.from_numpy(np.random.randn(3))\n",
            "import numpy as np\nimport torch\nx = torch.tensor(np.zeros(3))\n",
        ),
        (
            "import numpy as np\nimport torch\nx = torch.from_numpy(np.random.randn(3)).float()\n",
            "import numpy as np\nimport torch\nx = torch.from_numpy(np.zeros(3, dtype=np.float32))\n",
        ),
    ),
    "TP172": _case(
        (
            "def f(model):\n    return model.half()\n",
            "import torch\nx = torch.ones(2, dtype=torch.float16)\n",
        ),
        (
            "import torch\nif x.dtype == torch.half:\n    pass\n",
            "import torch\nwith torch.autocast('cuda', dtype=torch.float16):\n    pass\n",
        ),
    ),
}

CUDA_SOURCE = (
    "#include <cuda_runtime.h>\n"
    "__global__ void add_kernel(const float* x, float* y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void scale_kernel(T* x, T s) {}\n"
)
