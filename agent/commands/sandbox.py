"""`agent sandbox`: build the sandbox image and check isolation."""

import dataclasses
from enum import StrEnum
from typing import Annotated, Any

import typer

from agent.commands.common import print_json, state_of, stdout
from agent.exit_status import ExitStatus
from agent.settings import load_settings

app = typer.Typer(
    help="Build the Docker sandbox image and check that the sandbox isolates as promised.",
    no_args_is_help=True,
)


class DoctorBackend(StrEnum):
    """Which sandboxes `doctor` checks live."""

    ALL = "all"
    DOCKER = "docker"
    LOCAL = "local"


@app.command()
def build(
    ctx: typer.Context,
    base: Annotated[
        str | None,
        typer.Option(
            help="Base image (default: python:3.11-slim; torchport-base:bookworm offline)."
        ),
    ] = None,
    offline: Annotated[
        bool,
        typer.Option(help="Wheels from this host's pip config into the context; no network."),
    ] = False,
    torch_index: Annotated[
        str | None,
        typer.Option(help="Index for torch in online builds (PyTorch CPU index)."),
    ] = None,
    with_triton: Annotated[
        bool, typer.Option(help="Also install triton (original kernels, TRITON_INTERPRET=1).")
    ] = False,
    extra: Annotated[
        list[str] | None, typer.Option(help="Extra pip requirement (repeatable).")
    ] = None,
    tag: Annotated[
        str | None, typer.Option(help="Image tag (default: torchport-sandbox:VERSION).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Build even when the image is current.")] = False,
) -> None:
    """Build the `torchport-sandbox` image (CPU torch, numpy, torchport's runtime).

    Does nothing when an image built from the current runtime, with the same base and extras,
    already has the tag. Without a registry: `sandbox/image/make-base-image.sh` makes a local base,
    then `agent sandbox build --offline`.
    """
    from sandbox.docker_engine import connect
    from sandbox.image.build import build_image, build_options

    settings = load_settings(None, env=state_of(ctx).env)
    options = build_options(
        tag=tag or settings.sandbox.image,
        base=base,
        offline=offline,
        torch_index=torch_index,
        extras=(*(extra or ()), *(["triton"] if with_triton else [])),
    )
    outcome = build_image(connect(), options, force=force)
    state = "built" if outcome.built else "already current"
    stdout().print(f"{outcome.tag}: {state} ({outcome.seconds:.1f} s)")


@app.command()
def doctor(
    ctx: typer.Context,
    backend: Annotated[
        DoctorBackend, typer.Option("--sandbox", help="Which sandboxes to check live.")
    ] = DoctorBackend.ALL,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> int:
    """Report whether the engine is reachable, the image current, and each isolation property.

    Every property is verified live: a small hostile program runs in the sandbox (network, host
    environment, files, memory, processes, timeout, output size). Exits 0 when every check that
    ran passed, 6 otherwise.
    """
    from sandbox.doctor import diagnose

    settings = load_settings(None, env=state_of(ctx).env)
    report = diagnose(
        settings.sandbox,
        docker=backend in (DoctorBackend.ALL, DoctorBackend.DOCKER),
        local=backend in (DoctorBackend.ALL, DoctorBackend.LOCAL),
    )
    if as_json:
        print_json(dataclasses.asdict(report))
    else:
        _show(report)
    return int(ExitStatus.SUCCESS if report.ok else ExitStatus.INFRA_FAILURE)


def _show(report: Any) -> None:
    console = stdout()
    for fact in report.facts:
        console.print(f"{'ok ' if fact.ok else 'NO '} {fact.name}: {fact.detail}", markup=False)
    for name, checks in report.checks.items():
        console.print(f"── {name} sandbox ──", markup=False)
        for check in checks:
            mark = "ok " if check.ok else "NO "
            console.print(f"{mark} {check.name}: {check.detail}", markup=False)
    if not report.ok:
        console.print("some checks failed")
        return
    noted = sum(not fact.ok for fact in report.facts)
    console.print("all live checks passed" + (f" ({noted} noted above)" if noted else ""))
