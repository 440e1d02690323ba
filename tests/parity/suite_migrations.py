"""Hand migrations of suite cases to the emulated tpu, as text replacements of the originals in
`evals/suite/` (applied to a copy): what a correct migration of each case looks like."""

import shutil
from pathlib import Path

from evals.tasks import TaskSpec

Replacements = dict[str, list[tuple[str, str]]]

ACCELERATOR = "torch.accelerator.current_accelerator()"

MIGRATIONS: dict[str, Replacements] = {
    "word_lm": {
        "main.py": [
            ("if torch.cuda.is_available():", "if torch.accelerator.is_available():"),
            ("torch.cuda.manual_seed(args.seed)", "torch.manual_seed(args.seed)"),
            (
                'device = torch.device("cuda" if args.cuda else "cpu")',
                f'device = {ACCELERATOR} if args.cuda else torch.device("cpu")',
            ),
        ],
    },
    "digits_cnn": {
        "config.py": [
            ('DEVICE = "cuda:0"', f'import torch\n\nDEVICE = f"{{{ACCELERATOR}.type}}:0"'),
        ],
    },
    "tabular_autodevice": {
        "train.py": [
            (
                'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
                f'device = {ACCELERATOR} if torch.accelerator.is_available() else torch.device("cpu")',
            ),
            ("    torch.cuda.manual_seed_all(seed)\n", ""),
            ('    if device.type == "cuda":\n        torch.backends.cudnn.benchmark = True\n', ""),
        ],
    },
    "ddpm_generator": {
        "train.py": [
            ("import torch\n", f"import torch\n\nDEVICE = {ACCELERATOR}\n"),
            ('device="cuda"', "device=DEVICE"),
            ("EpsModel().cuda()", "EpsModel().to(DEVICE)"),
        ],
        "diffusion.py": [('device="cuda"', "device=None")],
    },
}


def copy_case(spec: TaskSpec, folder: Path) -> Path:
    """A clean copy of the case's original tree in `folder`."""
    shutil.copytree(spec.root, folder, ignore=shutil.ignore_patterns("__pycache__", "*.pt"))
    return folder


def migrate_case(spec: TaskSpec, folder: Path) -> Path:
    """A copy of the case in `folder` with its hand migration applied; every replacement must
    apply (a changed original fails loudly instead of silently testing the original)."""
    copy_case(spec, folder)
    for name, replacements in MIGRATIONS[spec.name].items():
        path = folder / name
        text = path.read_text(encoding="utf-8")
        for old, new in replacements:
            if old not in text:
                raise AssertionError(f"{spec.name}/{name}: {old!r} is not in the original")
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    return folder
