"""torch.compile options and Inductor settings that assume CUDA."""

from agent.settings import Target
from tools.rules.model import ACCELERATORS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP130",
        name="cuda-compile-mode",
        category=Category.COMPILE,
        message="A CUDA-specific `torch.compile` mode",
        explanation=(
            "'reduce-overhead' and the 'max-autotune' modes rely on CUDA graphs and Triton "
            "autotuning. TorchTPU and TorchNeuron ask for plain `torch.compile(model)`; the "
            "codemod removes `mode=` for tpu/neuron."
        ),
        before='model = torch.compile(model, mode="max-autotune")',
        after="model = torch.compile(model)",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP131",
        name="compile-inductor-backend",
        category=Category.COMPILE,
        message="`torch.compile` is pinned to the Inductor/cudagraphs backend",
        explanation=(
            "TorchTPU raises `torch.compile(..., backend='inductor') on TPU is experimental` and "
            "picks its own backend when none is given: the codemod removes `backend=` for tpu. "
            'TorchNeuron compiles with `backend="neuron"` on Trn2/Trn3 hardware; set it by hand.'
        ),
        before='model = torch.compile(model, backend="inductor")',
        after="model = torch.compile(model)",
        targets=ACCELERATORS,
        effort=Effort.LOW,
        codemods=frozenset({Target.TPU}),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP132",
        name="inference-mode-under-compile",
        category=Category.COMPILE,
        message="`torch.inference_mode` on a compiled function",
        explanation=(
            "TorchTPU cannot capture graphs under `@torch.inference_mode()` (dispatcher "
            "RuntimeError); `@torch.no_grad()` is the portable choice. The codemod swaps the "
            "decorator for tpu."
        ),
        before="@torch.compile\n@torch.inference_mode()\ndef predict(x): ...",
        after="@torch.compile\n@torch.no_grad()\ndef predict(x): ...",
        targets=frozenset({Target.TPU}),
        effort=Effort.NONE,
        codemods=frozenset({Target.TPU}),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP133",
        name="inductor-cuda-config",
        category=Category.COMPILE,
        message="Inductor's CUDA/Triton settings have no effect on the target",
        explanation=(
            "`torch._inductor.config.triton.*` (cudagraphs, autotuning) and the max-autotune "
            "switches tune Inductor's CUDA code generation. The codemod deletes them for "
            "tpu/neuron."
        ),
        before="torch._inductor.config.triton.cudagraphs = True",
        after="",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.NOTE,
    ),
)
