"""Device selection and discovery: `.cuda()`, "cuda" strings, torch.cuda device queries."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

_DEVICE = "torch.accelerator.current_accelerator(check_available=True) or torch.device('cpu')"

RULES = (
    Rule(
        code="TP001",
        name="cuda-device-selection",
        category=Category.DEVICE,
        message="Device chosen between CUDA and the CPU only; other accelerators fall back to CPU",
        explanation=(
            "`torch.device('cuda' if torch.cuda.is_available() else 'cpu')` (or the same choice "
            "written as an if/else) picks the CPU on a TPU or Trainium host: the program runs, "
            "silently, on the host. The codemod selects the current accelerator with "
            f"`{_DEVICE}`, which is CUDA on a GPU machine, `tpu`/`neuron` under TorchTPU and "
            "TorchNeuron, and the CPU elsewhere. Same behaviour on the CUDA path."
        ),
        before='device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
        after=(
            "device = torch.accelerator.current_accelerator(check_available=True) or "
            'torch.device("cpu")'
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP002",
        name="cuda-method",
        category=Category.DEVICE,
        message="`.cuda()` moves data to the CUDA device, which does not exist on the target",
        explanation=(
            "Without CUDA, `.cuda()` raises `AssertionError: Torch not compiled with CUDA "
            "enabled` (CPU build) or `Found no NVIDIA driver on your system` (CUDA build). The "
            "codemod rewrites `x.cuda(...)` to `x.to(device, ...)` with a device variable already "
            "in scope, or a module-level `DEVICE` (the current accelerator, else the CPU) that it "
            "adds after the imports; `x.cuda(i)` becomes `x.to(torch.device(DEVICE.type, i))`."
        ),
        before="model = Net().cuda()\nx = batch.cuda(non_blocking=True)",
        after="model = Net().to(DEVICE)\nx = batch.to(DEVICE, non_blocking=True)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP003",
        name="cuda-device-string",
        category=Category.DEVICE,
        message='A "cuda" device string names a device the target does not have',
        explanation=(
            'Device strings such as `"cuda"`, `"cuda:0"` or `f"cuda:{rank}"` in `torch.device`, '
            "`device=` arguments, `.to()` calls, and variables or config entries that hold the "
            "device fail without CUDA. The codemod uses the accelerator's type instead: "
            '`torch.device("cuda", i)` becomes `torch.device(DEVICE.type, i)`, `device="cuda"` '
            "becomes `device=DEVICE`, and a stored string becomes `DEVICE.type` (still a str)."
        ),
        before='x = torch.zeros(4, device="cuda")\ndev = torch.device(f"cuda:{rank}")',
        after="x = torch.zeros(4, device=DEVICE)\ndev = torch.device(DEVICE.type, rank)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP004",
        name="cuda-availability-check",
        category=Category.DEVICE,
        message="A CUDA-only check decides the code path; on the target the other branch runs",
        explanation=(
            "`torch.cuda.is_available()`, `x.is_cuda` and `device.type == 'cuda'` are False on "
            "TPU and Trainium, so the code they guard silently takes its CPU/slow branch (or an "
            "assert fails). Whether the guarded code can run on the target needs judgement. The "
            "codemod only rewrites switches that mean 'is there an accelerator' "
            "(`pin_memory=`, `enabled=`) to `torch.accelerator.is_available()`. Checks that only "
            "skip CUDA housekeeping (synchronize, cuDNN flags) are correct and not reported."
        ),
        before=(
            "if torch.cuda.is_available():\n"
            "    model = model.half()\n"
            "else:\n"
            "    model = model.float()"
        ),
        after=(
            "if torch.accelerator.is_available():  # review: does the branch suit the target?\n"
            "    ..."
        ),
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP005",
        name="cuda-device-count",
        category=Category.DEVICE,
        message="`torch.cuda.device_count()` is 0 on the target",
        explanation=(
            "A CUDA device count of 0 gives `world_size = 0`, spawns nothing or divides by zero. "
            "The codemod uses `torch.accelerator.device_count()`, which counts the current "
            "accelerator's devices (TorchTPU forbids the `torch.tpu.device_count` mirror)."
        ),
        before="world_size = torch.cuda.device_count()",
        after="world_size = torch.accelerator.device_count()",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP006",
        name="cuda-set-device",
        category=Category.DEVICE,
        message="`torch.cuda.set_device()` needs CUDA",
        explanation=(
            "Raises `Torch not compiled with CUDA enabled` without CUDA. The codemod calls "
            "`torch.accelerator.set_device_index(i)` when an accelerator is present (it raises "
            "on a CPU-only machine, so the call is guarded)."
        ),
        before="torch.cuda.set_device(local_rank)",
        after=(
            "if torch.accelerator.is_available():\n"
            "    torch.accelerator.set_device_index(local_rank)"
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP007",
        name="cuda-current-device",
        category=Category.DEVICE,
        message="`torch.cuda.current_device()` needs CUDA",
        explanation=(
            "The codemod reads `torch.accelerator.current_device_index()` when an accelerator "
            "is present and 0 (the CPU) otherwise."
        ),
        before="index = torch.cuda.current_device()",
        after=(
            "index = torch.accelerator.current_device_index() if "
            "torch.accelerator.is_available() else 0"
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP008",
        name="cuda-device-context",
        category=Category.DEVICE,
        message="`with torch.cuda.device(i):` needs CUDA",
        explanation=(
            "The codemod uses `torch.accelerator.device_index(i)` (PyTorch 2.8+), passing None "
            "(a no-op) when no accelerator is present."
        ),
        before="with torch.cuda.device(rank):\n    ...",
        after=(
            "with torch.accelerator.device_index(\n"
            "    rank if torch.accelerator.is_available() else None\n"
            "):\n"
            "    ..."
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP009",
        name="cuda-visible-devices",
        category=Category.DEVICE,
        message="`CUDA_VISIBLE_DEVICES` has no effect on the target",
        explanation=(
            "Device visibility is set per runtime: `TPU_VISIBLE_CHIPS`/`TPU_PROCESS_BOUNDS` or "
            "TorchTPU's launch environment on TPU, `NEURON_RT_VISIBLE_CORES` on Trainium. The "
            "variable is silently ignored, so device counts and placement change. Move the "
            "setting to the launch script of each target."
        ),
        before='os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"',
        after="# set the target's own variable in the launch script (NEURON_RT_VISIBLE_CORES=0-1)",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP010",
        name="cuda-tensor-type-cast",
        category=Category.DEVICE,
        message="Legacy `torch.cuda.*Tensor` type casts need CUDA",
        explanation=(
            "`x.type(torch.cuda.FloatTensor)` and `torch.set_default_tensor_type(torch.cuda."
            "FloatTensor)` fail without CUDA. The codemod writes `x.to(DEVICE, torch.float32)` "
            "and `torch.set_default_device(DEVICE)` + `torch.set_default_dtype(...)`, applying the "
            "target's dtype policy (float64 and float16 become float32 and bfloat16 on tpu/neuron)."
        ),
        before="x = x.type(torch.cuda.FloatTensor)",
        after="x = x.to(DEVICE, torch.float32)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP011",
        name="cuda-tensor-constructor",
        category=Category.DEVICE,
        message="Legacy `torch.cuda.*Tensor(...)` constructors need CUDA",
        explanation=(
            "`torch.cuda.FloatTensor(data)` builds from data, `torch.cuda.FloatTensor(3, 4)` an "
            "uninitialised 3x4 tensor: the meaning depends on the arguments, so no codemod. Use "
            "`torch.tensor(data, dtype=..., device=DEVICE)` or `torch.empty(3, 4, device=DEVICE)`."
        ),
        before="mask = torch.cuda.BoolTensor(values)",
        after="mask = torch.tensor(values, dtype=torch.bool, device=DEVICE)",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP012",
        name="cuda-capability-query",
        category=Category.DEVICE,
        message="CUDA device properties are queried to choose kernels or dtypes",
        explanation=(
            "`get_device_name`, `get_device_properties`, `get_device_capability` and "
            "`is_bf16_supported` raise without CUDA, or steer the program down a path chosen for "
            "a GPU. bf16 is native on TPU and Trainium; other answers need judgement "
            "(`torch.get_device_module(device).get_device_properties` where implemented, "
            "`torch.accelerator.get_memory_info()` for memory)."
        ),
        before="dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16",
        after="dtype = torch.bfloat16  # bf16 is native on TPU and Trainium",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP019",
        name="cuda-api",
        category=Category.DEVICE,
        message="A `torch.cuda` API that no other rule covers needs CUDA",
        explanation=(
            "Any other use of the `torch.cuda` module (`torch.cuda.ipc_collect()`, "
            "`torch.cuda.is_initialized()`, passing `torch.cuda` around) initialises or queries "
            "CUDA. Find the `torch.accelerator` or `torch.get_device_module()` equivalent, or "
            "guard it with `if torch.cuda.is_available():`."
        ),
        before="torch.cuda.ipc_collect()",
        after="if torch.cuda.is_available():\n    torch.cuda.ipc_collect()",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
)
