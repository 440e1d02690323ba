"""`agent run`: run a command from a repository inside the sandbox."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agent.commands.common import existing_dir, not_available


class Runtime(StrEnum):
    """What the sandboxed Python runs on."""

    TPU = "tpu"
    NEURON = "neuron"
    CPU = "cpu"
    REFERENCE = "reference"


def run(
    path: Annotated[Path, typer.Argument(help="Repository whose copy the command runs in.")],
    command: Annotated[list[str], typer.Argument(help="The command, after `--`.")],
    target: Annotated[Runtime, typer.Option(help="Runtime inside the sandbox.")] = Runtime.CPU,
) -> None:
    """Run a command on a copy of a repository inside the sandbox.

    The sandbox has no network, bounded memory/CPU/processes/time and no host secrets; the command
    runs on the emulated tpu/neuron device, plain CPU, or the CUDA-on-CPU reference runtime.
    """
    existing_dir(path)
    raise not_available("run", "the sandbox issue")
