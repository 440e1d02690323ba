"""Host-to-device transfer: pinned memory."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP090",
        name="pin-memory-flag",
        category=Category.DATA_LOADING,
        message="Pinned memory is requested unconditionally",
        explanation=(
            "`pin_memory=True` warns `'pin_memory' argument is set as true but no accelerator "
            "is found` on CPU hosts and on torch_xla (not a `torch.accelerator`), and "
            '`pin_memory_device="cuda"` names CUDA. The codemod writes '
            "`pin_memory=torch.accelerator.is_available()` and drops `pin_memory_device` (the "
            "current accelerator is the default)."
        ),
        before="loader = DataLoader(ds, batch_size=32, pin_memory=True)",
        after="loader = DataLoader(ds, batch_size=32, pin_memory=torch.accelerator.is_available())",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP091",
        name="pin-memory-call",
        category=Category.DATA_LOADING,
        message="`tensor.pin_memory()` fails without an accelerator",
        explanation=(
            "Raises `Cannot access accelerator device when none is available` on a CPU-only "
            "machine. For a tensor held in a variable, the codemod pins only when an accelerator "
            "is present: `(x.pin_memory() if torch.accelerator.is_available() else x)`."
        ),
        before="batch = batch.pin_memory()",
        after="batch = (batch.pin_memory() if torch.accelerator.is_available() else batch)",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
)
