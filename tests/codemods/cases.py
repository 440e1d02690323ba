"""Before/after pairs for every codemod and target, written by hand from the rule texts."""

from dataclasses import dataclass

from agent.settings import Target

ALL = frozenset(Target)
BF16 = frozenset({Target.TPU, Target.NEURON})
AGNOSTIC = frozenset({Target.AGNOSTIC})

DEVICE_LINE = (
    "# torchport: the accelerator when there is one (cuda, tpu, neuron, ...), else the CPU.\n"
    'DEVICE = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")\n'
)
HEADER = "import torch\n\n" + DEVICE_LINE + "\n"
ACCELERATOR_DEVICE = (
    'torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")'
)


@dataclass(frozen=True)
class CodemodCase:
    """`before` migrated for each of `targets` with only `rule` selected gives `after`."""

    rule: str
    targets: frozenset[Target]
    before: str
    after: str


CASES: tuple[CodemodCase, ...] = (
    CodemodCase(
        "TP001",
        ALL,
        'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
        f"import torch\ndevice = {ACCELERATOR_DEVICE}\n",
    ),
    CodemodCase(
        "TP001",
        ALL,
        "import torch\nif torch.cuda.is_available():\n    device = torch.device('cuda')\n"
        "else:\n    device = torch.device('cpu')\n",
        f"import torch\ndevice = {ACCELERATOR_DEVICE}\n",
    ),
    CodemodCase(
        "TP001",
        ALL,
        'import torch\n\nname = "cuda" if torch.cuda.is_available() else "cpu"\n',
        HEADER + "name = DEVICE.type\n",
    ),
    CodemodCase(
        "TP002",
        ALL,
        "import torch\n\nmodel = Net().cuda()\nx = batch.cuda(non_blocking=True)\n"
        "y = batch.cuda(rank)\n",
        HEADER + "model = Net().to(DEVICE)\nx = batch.to(DEVICE, non_blocking=True)\n"
        "y = batch.to(torch.device(DEVICE.type, rank))\n",
    ),
    CodemodCase(  # in a map_location lambda the receiver is a storage: device by keyword only
        "TP002",
        ALL,
        'import torch\n\nsd = torch.load("m.pt", map_location=lambda s, loc: s.cuda(0))\n',
        HEADER
        + 'sd = torch.load("m.pt", map_location=lambda s, loc: s.to(device=torch.device(DEVICE.type, 0)))\n',
    ),
    CodemodCase(
        "TP002",
        ALL,
        "import torch\n\n\ndef f(x):\n    device = torch.device('cpu')\n    return x.cuda()\n",
        "import torch\n\n\ndef f(x):\n    device = torch.device('cpu')\n    return x.to(device)\n",
    ),
    CodemodCase(
        "TP003",
        ALL,
        'import torch\n\nx = torch.zeros(2, device="cuda")\nd = torch.device("cuda:1")\n'
        'e = torch.device(f"cuda:{rank}")\nf = torch.device("cuda", rank)\n'
        'cfg = {"device": "cuda:0"}\n',
        HEADER + "x = torch.zeros(2, device=DEVICE)\nd = torch.device(DEVICE.type, 1)\n"
        "e = torch.device(DEVICE.type, rank)\nf = torch.device(DEVICE.type, rank)\n"
        'cfg = {"device": f"{DEVICE.type}:0"}\n',
    ),
    CodemodCase(
        "TP004",
        ALL,
        "import torch\nloader = DataLoader(ds, pin_memory=torch.cuda.is_available())\n",
        "import torch\nloader = DataLoader(ds, pin_memory=torch.accelerator.is_available())\n",
    ),
    CodemodCase(
        "TP005",
        ALL,
        "import torch\nn = torch.cuda.device_count()\n",
        "import torch\nn = torch.accelerator.device_count()\n",
    ),
    CodemodCase(
        "TP006",
        ALL,
        "import torch\n\n\ndef setup(rank):\n    torch.cuda.set_device(rank)\n",
        "import torch\n\n\ndef setup(rank):\n    if torch.accelerator.is_available():\n"
        "        torch.accelerator.set_device_index(rank)\n",
    ),
    CodemodCase(
        "TP007",
        ALL,
        "import torch\nindex = torch.cuda.current_device()\n",
        "import torch\nindex = torch.accelerator.current_device_index() "
        "if torch.accelerator.is_available() else 0\n",
    ),
    CodemodCase(
        "TP008",
        ALL,
        "import torch\nwith torch.cuda.device(1):\n    pass\n",
        "import torch\nwith torch.accelerator.device_index(1 if torch.accelerator.is_available() "
        "else None):\n    pass\n",
    ),
    CodemodCase(
        "TP010",
        BF16,
        "import torch\n\ny = x.type(torch.cuda.DoubleTensor)\n"
        "torch.set_default_tensor_type(torch.cuda.HalfTensor)\n",
        HEADER + "y = x.to(DEVICE, torch.float32)\ntorch.set_default_device(DEVICE)\n"
        "torch.set_default_dtype(torch.bfloat16)\n",
    ),
    CodemodCase(
        "TP010",
        AGNOSTIC,
        "import torch\n\ny = x.type(torch.cuda.DoubleTensor)\n"
        'torch.set_default_tensor_type("torch.cuda.HalfTensor")\n',
        HEADER + "y = x.to(DEVICE, torch.float64)\ntorch.set_default_device(DEVICE)\n"
        "torch.set_default_dtype(torch.float16)\n",
    ),
    CodemodCase(
        "TP020",
        ALL,
        "import torch\ntorch.manual_seed(0)\ntorch.cuda.manual_seed_all(0)\n"
        "torch.cuda.manual_seed(1)\n",
        "import torch\ntorch.manual_seed(0)\ntorch.manual_seed(1)\n",
    ),
    CodemodCase(
        "TP021",
        ALL,
        'import torch\n\ng = torch.Generator(device="cuda")\n',
        HEADER + "g = torch.Generator(device=DEVICE)\n",
    ),
    CodemodCase(
        "TP030",
        AGNOSTIC,
        "from torch.cuda.amp import autocast\nimport torch\n\nwith autocast(enabled=use_amp):\n"
        '    pass\nwith torch.autocast("cuda", dtype=torch.float16):\n    pass\n',
        "import torch\n\n" + DEVICE_LINE + "\n"
        "with torch.amp.autocast(device_type=DEVICE.type, enabled=use_amp):\n    pass\n"
        "with torch.autocast(DEVICE.type, dtype=torch.float16):\n    pass\n",
    ),
    CodemodCase(
        "TP030",
        BF16,
        "from torch.cuda.amp import autocast\nimport torch\n\nwith autocast(enabled=use_amp):\n"
        '    pass\nwith torch.autocast("cuda", dtype=torch.float16):\n    pass\n',
        "import torch\n\n" + DEVICE_LINE + "\n"
        "with torch.amp.autocast(device_type=DEVICE.type, enabled=use_amp, dtype=torch.bfloat16):\n"
        "    pass\nwith torch.autocast(DEVICE.type, dtype=torch.bfloat16):\n    pass\n",
    ),
    CodemodCase(
        "TP031",
        BF16,
        "import torch\nwith torch.autocast(device_type=dev.type, dtype=torch.float16):\n    pass\n",
        "import torch\nwith torch.autocast(device_type=dev.type, dtype=torch.bfloat16):\n    pass\n",
    ),
    CodemodCase(
        "TP032",
        AGNOSTIC,
        "import torch\n\nscaler = torch.cuda.amp.GradScaler(enabled=use_amp)\n"
        "scaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n",
        HEADER + "scaler = torch.amp.GradScaler(DEVICE.type, enabled=use_amp)\n"
        "scaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n",
    ),
    CodemodCase(
        "TP032",
        BF16,
        "import torch\n\nscaler = torch.cuda.amp.GradScaler(enabled=use_amp)\n"
        "scaler.scale(loss).backward()\nscaler.step(opt)\nscaler.update()\n",
        "import torch\n\nloss.backward()\nopt.step()\n",
    ),
    CodemodCase(
        "TP033",
        BF16,
        "from torch.cuda.amp import GradScaler\n\n\nclass Trainer:\n"
        "    def __init__(self):\n        self.scaler = GradScaler()\n\n"
        "    def step(self, a, b):\n        self.scaler.scale(a + b).backward()\n"
        "        self.scaler.unscale_(self.opt)\n        self.scaler.step(self.opt)\n"
        "        self.scaler.update()\n        return self.scaler.get_scale()\n\n"
        "    def save(self):\n        return {'scaler': self.scaler.state_dict()}\n",
        "\n\nclass Trainer:\n    def __init__(self):\n        pass\n\n"
        "    def step(self, a, b):\n        (a + b).backward()\n        self.opt.step()\n"
        "        return 1.0\n\n    def save(self):\n        return {'scaler': {}}\n",
    ),
    CodemodCase(
        "TP034",
        AGNOSTIC,
        "import torch\n\n\n@torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)\ndef f(ctx, x):\n"
        "    return x\n\n\n@torch.cuda.amp.custom_bwd\ndef g(ctx, x):\n    return x\n",
        "import torch\n\n" + DEVICE_LINE + "\n\n"
        "@torch.amp.custom_fwd(device_type=DEVICE.type, cast_inputs=torch.float16)\n"
        "def f(ctx, x):\n    return x\n\n\n@torch.amp.custom_bwd(device_type=DEVICE.type)\n"
        "def g(ctx, x):\n    return x\n",
    ),
    CodemodCase(
        "TP034",
        BF16,
        "import torch\n\n\n@torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)\ndef f(ctx, x):\n"
        "    return x\n",
        "import torch\n\n" + DEVICE_LINE + "\n\n"
        "@torch.amp.custom_fwd(device_type=DEVICE.type, cast_inputs=torch.bfloat16)\n"
        "def f(ctx, x):\n    return x\n",
    ),
    CodemodCase(
        "TP050",
        BF16,
        "import torch\nimport torch.backends.cudnn as cudnn\n\ncudnn.benchmark = True\n"
        "torch.backends.cudnn.deterministic = True\nx = 1\n",
        "import torch\n\ntorch.use_deterministic_algorithms(True)\nx = 1\n",
    ),
    CodemodCase(
        "TP051",
        BF16,
        "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
        "torch.backends.cudnn.allow_tf32 = True\ntorch.backends.cuda.matmul.allow_tf32 = use_tf32\n"
        'torch.backends.cuda.matmul.fp32_precision = "ieee"\n',
        'import torch\ntorch.set_float32_matmul_precision("high")\n'
        'torch.set_float32_matmul_precision("high" if use_tf32 else "highest")\n'
        'torch.set_float32_matmul_precision("highest")\n',
    ),
    CodemodCase(
        "TP052",
        BF16,
        "import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\n\ndef f(q, k, v):\n"
        "    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n"
        "        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
        "    return out\n",
        "import torch\n\n\ndef f(q, k, v):\n"
        "    out = torch.nn.functional.scaled_dot_product_attention(q, k, v)\n    return out\n",
    ),
    CodemodCase(
        "TP052",
        AGNOSTIC,
        "import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\n"
        "with sdpa_kernel(SDPBackend.FLASH_ATTENTION):\n    pass\n"
        "with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False):\n    pass\n",
        "import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\n"
        "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):\n    pass\n"
        "with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=True):\n    pass\n",
    ),
    CodemodCase(
        "TP053",
        BF16,
        "import torch\ntorch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False\n"
        "torch.backends.cuda.enable_flash_sdp(False)\nx = 1\n",
        "import torch\nx = 1\n",
    ),
    CodemodCase(
        "TP060",
        ALL,
        "import torch\ntorch.cuda.synchronize()\nif ready: torch.cuda.synchronize()\n",
        "import torch\nif torch.accelerator.is_available():\n    torch.accelerator.synchronize()\n"
        "if ready: torch.accelerator.is_available() and torch.accelerator.synchronize()\n",
    ),
    CodemodCase(
        "TP061",
        ALL,
        "import os\n\nimport torch\n\n\ndef timed(step):\n"
        "    start = torch.cuda.Event(enable_timing=True)\n"
        "    end = torch.cuda.Event(enable_timing=True)\n    start.record()\n    step()\n"
        "    end.record()\n    end.synchronize()\n    return start.elapsed_time(end) / 1000\n",
        "import os\nimport time\n\nimport torch\n\n\ndef timed(step):\n"
        "    if torch.accelerator.is_available():\n        torch.accelerator.synchronize()\n"
        "    start = time.perf_counter()\n    step()\n"
        "    if torch.accelerator.is_available():\n        torch.accelerator.synchronize()\n"
        "    end = time.perf_counter()\n"
        "    if torch.accelerator.is_available():\n        torch.accelerator.synchronize()\n"
        "    return ((end - start) * 1000.0) / 1000\n",
    ),
    CodemodCase(
        "TP063",
        ALL,
        'import torch\nwith torch.cuda.nvtx.range("forward"):\n    pass\n',
        'import torch\nwith torch.profiler.record_function("forward"):\n    pass\n',
    ),
    CodemodCase(
        "TP080",
        ALL,
        "import torch\npeak = torch.cuda.max_memory_allocated() / 2**20\n"
        "torch.cuda.reset_peak_memory_stats()\nstats = torch.cuda.memory_stats()\n"
        "used = torch.cuda.memory_allocated(0)\n",
        "import torch\npeak = (torch.accelerator.memory.max_memory_allocated() "
        "if torch.accelerator.is_available() else 0) / 2**20\n"
        "if torch.accelerator.is_available():\n"
        "    torch.accelerator.memory.reset_peak_memory_stats()\n"
        "stats = torch.accelerator.memory.memory_stats() "
        "if torch.accelerator.is_available() else {}\n"
        "used = torch.accelerator.memory.memory_allocated(0) "
        "if torch.accelerator.is_available() else 0\n",
    ),
    CodemodCase(
        "TP081",
        ALL,
        "import gc\nimport torch\ngc.collect()\ntorch.cuda.empty_cache()\n",
        "import gc\nimport torch\ngc.collect()\nif torch.accelerator.is_available():\n"
        "    torch.accelerator.memory.empty_cache()\n",
    ),
    CodemodCase(
        "TP084",
        ALL,
        "import torch\ntorch.cuda.set_per_process_memory_fraction(0.5)\n",
        "import torch\nif torch.cuda.is_available():\n"
        "    torch.cuda.set_per_process_memory_fraction(0.5)\n",
    ),
    CodemodCase(
        "TP090",
        ALL,
        "from torch.utils.data import DataLoader\n"
        'loader = DataLoader(ds, pin_memory=True, pin_memory_device="cuda", num_workers=2)\n',
        "from torch.utils.data import DataLoader\nimport torch\n\n"
        "loader = DataLoader(ds, pin_memory=torch.accelerator.is_available(), num_workers=2)\n",
    ),
    CodemodCase(
        "TP091",
        ALL,
        "def collate(batch):\n    return batch.pin_memory()\n",
        "import torch\n\ndef collate(batch):\n"
        "    return batch.pin_memory() if torch.accelerator.is_available() else batch\n",
    ),
    CodemodCase(
        "TP100",
        ALL,
        'import torch.distributed as dist\n\ndist.init_process_group(backend="nccl")\n'
        'BACKEND = "nccl"\n',
        "import torch.distributed as dist\nimport torch\n\n" + DEVICE_LINE + "\n"
        "dist.init_process_group(backend=dist.get_default_backend_for_device(DEVICE))\n"
        "BACKEND = dist.get_default_backend_for_device(DEVICE)\n",
    ),
    CodemodCase(
        "TP101",
        ALL,
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
        "model = DDP(model, device_ids=[rank], output_device=rank)\n",
        "import torch\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
        + DEVICE_LINE
        + '\nmodel = DDP(model, device_ids=[rank] if DEVICE.type == "cuda" else None, '
        'output_device=rank if DEVICE.type == "cuda" else None)\n',
    ),
    CodemodCase(
        "TP106",
        BF16,
        'import os\nos.environ["NCCL_DEBUG"] = "INFO"\nos.environ.setdefault("NCCL_IB_DISABLE", "1")\n'
        'os.environ["OMP_NUM_THREADS"] = "4"\n',
        'import os\nos.environ["OMP_NUM_THREADS"] = "4"\n',
    ),
    CodemodCase(
        "TP120",
        ALL,
        'import torch\n\nstate = torch.load(path, map_location="cuda:0")\n'
        'other = torch.load(path, map_location="cuda")\n',
        HEADER + "state = torch.load(path, map_location=torch.device(DEVICE.type, 0))\n"
        "other = torch.load(path, map_location=DEVICE)\n",
    ),
    CodemodCase(
        "TP121",
        ALL,
        "import torch\nstate = torch.load(path)\n",
        'import torch\nstate = torch.load(path, map_location="cpu")\n',
    ),
    CodemodCase(
        "TP130",
        BF16,
        'import torch\nm = torch.compile(model, mode="reduce-overhead", fullgraph=True)\n',
        "import torch\nm = torch.compile(model, fullgraph=True)\n",
    ),
    CodemodCase(
        "TP131",
        frozenset({Target.TPU}),
        'import torch\nm = torch.compile(model, backend="inductor")\n',
        "import torch\nm = torch.compile(model)\n",
    ),
    CodemodCase(
        "TP132",
        frozenset({Target.TPU}),
        "import torch\n\n\n@torch.compile\n@torch.inference_mode()\ndef f(x):\n    return x\n",
        "import torch\n\n\n@torch.compile\n@torch.no_grad()\ndef f(x):\n    return x\n",
    ),
    CodemodCase(
        "TP133",
        BF16,
        "import torch\ntorch._inductor.config.triton.cudagraphs = True\nx = 1\n",
        "import torch\nx = 1\n",
    ),
    CodemodCase(
        "TP150",
        ALL,
        "import torch.nn.functional as F\nfrom flash_attn import flash_attn_func\n\n\n"
        "def attend(q, k, v, p):\n"
        "    return flash_attn_func(q, k, v, dropout_p=p, softmax_scale=0.1, causal=True)\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, p):\n"
        "    return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), "
        "v.transpose(1, 2), dropout_p=p, scale=0.1, is_causal=True, enable_gqa=True)"
        ".transpose(1, 2)\n",
    ),
    CodemodCase(
        "TP150",
        ALL,
        "import torch\nfrom flash_attn import flash_attn_qkvpacked_func\n\n"
        "out = flash_attn_qkvpacked_func(qkv, 0.0, None, True)\n",
        "import torch\n\n"
        "out = torch.nn.functional.scaled_dot_product_attention(*qkv.permute(2, 0, 3, 1, 4), "
        "dropout_p=0.0, scale=None, is_causal=True, enable_gqa=True).transpose(1, 2)\n",
    ),
    CodemodCase(
        "TP151",
        ALL,
        "import torch\nimport xformers.ops as xops\n\n"
        "out = xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask(), "
        "p=0.1)\n",
        "import torch\n\n"
        "out = torch.nn.functional.scaled_dot_product_attention(q.transpose(1, 2), "
        "k.transpose(1, 2), v.transpose(1, 2), dropout_p=0.1, is_causal=True).transpose(1, 2)\n",
    ),
    CodemodCase(
        "TP152",
        ALL,
        "import torch\nfrom apex.normalization import FusedLayerNorm, FusedRMSNorm\n"
        "from apex.optimizers import FusedAdam\n\n"
        "opt = FusedAdam(params, lr=1e-3, set_grad_none=True)\n"
        "sgd_like = FusedAdam(params, lr=1e-3, adam_w_mode=False, weight_decay=0.1)\n"
        "norm = FusedLayerNorm(64, eps=1e-6)\nrms = FusedRMSNorm(64)\n",
        "import torch\n\n"
        "opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.0)\n"
        "sgd_like = torch.optim.Adam(params, lr=1e-3, weight_decay=0.1)\n"
        "norm = torch.nn.LayerNorm(64, eps=1e-6)\nrms = torch.nn.RMSNorm(64, eps=1e-5)\n",
    ),
    CodemodCase(
        "TP170",
        BF16,
        "import torch\nfrom torch import float64\n\nx = torch.zeros(3, dtype=torch.float64)\n"
        "y = x.double()\ntorch.set_default_dtype(torch.double)\nz = x.to(float64)\n"
        "same = x.dtype == torch.float64\n",
        "import torch\n\nx = torch.zeros(3, dtype=torch.float32)\n"
        "y = x.float()\ntorch.set_default_dtype(torch.float32)\nz = x.to(torch.float32)\n"
        "same = x.dtype == torch.float64\n",
    ),
    CodemodCase(
        "TP171",
        BF16,
        "import numpy as np\nimport torch\n\nx = torch.from_numpy(np.random.randn(3, 4))\n"
        "y = torch.tensor(np.linspace(0, 1, 5))\n",
        "import numpy as np\nimport torch\n\nx = torch.from_numpy(np.random.randn(3, 4)).float()\n"
        "y = torch.tensor(np.linspace(0, 1, 5), dtype=torch.float32)\n",
    ),
    CodemodCase(
        "TP172",
        BF16,
        "import torch\n\nmodel = model.half()\nx = torch.ones(2, dtype=torch.float16)\n",
        "import torch\n\nmodel = model.to(torch.bfloat16)\nx = torch.ones(2, dtype=torch.bfloat16)\n",
    ),
)
