"""`agent sandbox`: build the sandbox image and check isolation."""

import typer

from agent.commands.common import not_available

app = typer.Typer(
    help="Build the Docker sandbox image and check that the sandbox isolates as promised.",
    no_args_is_help=True,
)


@app.command()
def build() -> None:
    """Build the `torchport-sandbox` image (CPU torch, numpy, torchport's runtime)."""
    raise not_available("sandbox build", "the sandbox issue")


@app.command()
def doctor() -> None:
    """Report whether the engine is reachable, the image current, and each isolation property."""
    raise not_available("sandbox doctor", "the sandbox issue")
