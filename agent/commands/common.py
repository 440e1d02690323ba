"""What every subcommand shares: the per-invocation state, path checks, and result output."""

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from agent.errors import BadInputError


@dataclass
class CliState:
    """What `main()` hands to every command: the environment it runs in and the verbosity."""

    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    verbosity: int = 0


def state_of(ctx: typer.Context) -> CliState:
    """The invocation's state (created by `main`; a bare default when a command is run alone)."""
    root = ctx.find_root()
    if not isinstance(root.obj, CliState):
        root.obj = CliState()
    return root.obj


def existing_dir(path: Path, what: str = "path") -> Path:
    """`path` resolved, or a one-line BAD_INPUT error saying what is wrong with it."""
    if not path.exists():
        raise BadInputError(f"{what} {path} does not exist", hint="check the path")
    if not path.is_dir():
        raise BadInputError(f"{what} {path} is not a directory", hint="pass the repository folder")
    return path.resolve()


def stdout() -> Console:
    """A console on the current stdout (looked up at call time, so in-process tests capture it)."""
    return Console(highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Machine-readable output: one JSON document on stdout."""
    typer.echo(json.dumps(data, indent=2, sort_keys=False, default=str))
