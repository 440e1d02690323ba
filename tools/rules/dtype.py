"""Data types the bf16-native targets handle differently: float64 and float16."""

from tools.rules.model import ACCELERATORS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP170",
        name="float64",
        category=Category.DTYPE,
        message="float64 on a target without float64 hardware",
        explanation=(
            "TPUs have no f64 units (XLA emulates them slowly); Trainium has no FP64 and "
            "torch-neuronx silently downcasts to float32; the emulated targets refuse float64. "
            "By the tpu/neuron policy the codemod uses float32: `.double()` becomes `.float()`, "
            "`torch.float64`/`torch.double` arguments become `torch.float32`. Comparisons such "
            "as `x.dtype == torch.float64` are left alone. This changes numerics by design."
        ),
        before="x = torch.zeros(4, dtype=torch.float64)\ny = y.double()",
        after="x = torch.zeros(4, dtype=torch.float32)\ny = y.float()",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP171",
        name="numpy-float64-input",
        category=Category.DTYPE,
        message="A NumPy float64 array becomes a float64 tensor",
        explanation=(
            "`np.random.randn`, `np.zeros`, `np.linspace` and friends default to float64, and "
            "`torch.from_numpy` keeps it. The codemod converts at the host boundary: "
            "`torch.from_numpy(np.random.randn(8)).float()` (`dtype=torch.float32` for "
            "`torch.tensor`/`torch.as_tensor`)."
        ),
        before="x = torch.from_numpy(np.random.randn(8, 4))",
        after="x = torch.from_numpy(np.random.randn(8, 4)).float()",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP172",
        name="float16",
        category=Category.DTYPE,
        message="float16 on a bf16-native target",
        explanation=(
            "TPU matrix units are bf16-native and Trainium recommends bf16; float16 halves the "
            "exponent range (overflow without loss scaling). The codemod uses bfloat16: "
            "`.half()` becomes `.to(torch.bfloat16)`, `torch.float16`/`torch.half` arguments "
            "become `torch.bfloat16`. Optimizer-state precision may still need review."
        ),
        before="model = model.half()",
        after="model = model.to(torch.bfloat16)",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.WARNING,
    ),
)
