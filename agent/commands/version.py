"""`agent version`: torchport's version and the versions it runs with."""

import platform
from importlib import metadata
from typing import Annotated

import typer

from agent import __version__
from agent.commands.common import print_json, stdout

_COMPONENTS = ("torch", "numpy", "libcst", "langgraph", "openai", "docker")


def versions() -> dict[str, str]:
    """torchport's version, Python's, and those of the libraries it builds on."""
    found = {"torchport": __version__, "python": platform.python_version()}
    for name in _COMPONENTS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def version(
    as_json: Annotated[bool, typer.Option("--json", help="Print the versions as JSON.")] = False,
) -> None:
    """Show torchport's version and the versions of Python, PyTorch and the other libraries."""
    found = versions()
    if as_json:
        print_json(found)
        return
    console = stdout()
    console.print(f"torchport {found.pop('torchport')}")
    for name, value in found.items():
        console.print(f"  {name:<10} {value}")
