"""Seeds and random generators bound to CUDA."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP020",
        name="cuda-manual-seed",
        category=Category.RNG,
        message="`torch.cuda.manual_seed*()` seeds only CUDA generators",
        explanation=(
            "The target's generators stay unseeded, so runs are not reproducible (on XLA, "
            "replicas even start from different weights). `torch.manual_seed(s)` seeds every "
            "device. The codemod deletes the call when the same block already calls "
            "`torch.manual_seed` with the same argument (no change on CUDA) and otherwise "
            "replaces it with `torch.manual_seed(s)`, which also reseeds the CPU generator."
        ),
        before="torch.manual_seed(0)\ntorch.cuda.manual_seed_all(0)",
        after="torch.manual_seed(0)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP021",
        name="cuda-generator",
        category=Category.RNG,
        message="A `torch.Generator` is created on the CUDA device",
        explanation=(
            "Fails without CUDA. The codemod creates the generator on the selected device "
            "(`device=DEVICE`); torch_xla has no device generators, TorchTPU and TorchNeuron do."
        ),
        before='g = torch.Generator(device="cuda")',
        after="g = torch.Generator(device=DEVICE)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP022",
        name="cuda-rng-state",
        category=Category.RNG,
        message="CUDA RNG state is saved or restored",
        explanation=(
            "`torch.cuda.get_rng_state()`, `set_rng_state`, `*_all` variants, `initial_seed` "
            "and `seed` need CUDA. Checkpoints that store the CUDA RNG state must store the "
            "target's instead (`torch.get_device_module(device).get_rng_state()` where the "
            "backend provides it, or `torch.accelerator.random` on newer PyTorch)."
        ),
        before='state["cuda_rng"] = torch.cuda.get_rng_state_all()',
        after='state["device_rng"] = torch.get_device_module(DEVICE).get_rng_state()',
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
)
