"""Checkpoints loaded onto CUDA."""

from tools.rules.model import ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP120",
        name="cuda-map-location",
        category=Category.SERIALIZATION,
        message="A checkpoint is loaded onto the CUDA device",
        explanation=(
            "`torch.load(path, map_location='cuda:0')` fails without CUDA. The codemod loads "
            "onto the selected device (`map_location=DEVICE`, or "
            "`torch.device(DEVICE.type, i)` for an index)."
        ),
        before='state = torch.load(path, map_location="cuda:0")',
        after="state = torch.load(path, map_location=torch.device(DEVICE.type, 0))",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP121",
        name="load-without-map-location",
        category=Category.SERIALIZATION,
        message=(
            "`torch.load` without `map_location` restores tensors to the device they were "
            "saved from"
        ),
        explanation=(
            "A checkpoint saved from CUDA tensors raises `Attempting to deserialize object on "
            "a CUDA device but torch.cuda.is_available() is False` off CUDA. The codemod adds "
            '`map_location="cpu"`; `load_state_dict` then copies into the model\'s device. '
            "Tensors used straight from the checkpoint stay on the CPU: move them explicitly."
        ),
        before="state = torch.load(path)",
        after='state = torch.load(path, map_location="cpu")',
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
)
