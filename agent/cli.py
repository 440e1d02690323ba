"""The `agent` command line: parse, validate, call a plain function, map the outcome to exit codes.

`main(argv, env)` runs in-process (tests call it directly); the console script calls `main()`.
"""

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Annotated

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError

from agent.commands import eval as eval_command
from agent.commands import fix, parity, rules, run, scan, version
from agent.commands import sandbox as sandbox_command
from agent.commands.common import CliState, state_of
from agent.errors import TorchportError
from agent.exit_status import ExitStatus
from agent.log import ROOT_LOGGER, configure_logging

log = logging.getLogger(f"{ROOT_LOGGER}.agent.cli")

app = typer.Typer(
    name="agent",
    help="torchport: move PyTorch code off CUDA (to TPU, Trainium or device-agnostic PyTorch) "
    "and prove the move with parity tests.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _global_options(
    ctx: typer.Context,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only warnings and errors.")] = False,
) -> None:
    """Global options apply to every subcommand."""
    state = state_of(ctx)
    state.verbosity = 1 if verbose else -1 if quiet else 0
    configure_logging(state.verbosity)


app.command("scan")(scan.scan)
app.command("fix")(fix.fix)
app.command("run")(run.run)
app.command("parity")(parity.parity)
app.command("eval")(eval_command.evaluate)
app.add_typer(sandbox_command.app, name="sandbox")
app.command("rules")(rules.rules)
app.command("version")(version.version)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run the CLI on `argv` (default: `sys.argv[1:]`) with `env` (default: `os.environ`)."""
    state = CliState(env=dict(os.environ if env is None else env))
    configure_logging(0)
    command = typer.main.get_command(app)
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = command.main(args=args, prog_name="agent", standalone_mode=False, obj=state)
    except NoArgsIsHelpError:
        return int(ExitStatus.BAD_INPUT)  # the help text has been shown
    except ClickException as exc:
        message = exc.format_message().replace("Value error, ", "")
        _error(f"{message} (see `{_command_path(args)} --help`)")
        return int(ExitStatus.BAD_INPUT)
    except TorchportError as exc:
        _error(exc.one_line())
        return int(exc.status)
    except KeyboardInterrupt:
        _error("interrupted")
        return int(ExitStatus.INTERRUPTED)
    except Exception:
        log.exception("internal error in torchport; please report it with the traceback above")
        return int(ExitStatus.INTERNAL_ERROR)
    if isinstance(result, ExitStatus | int):
        return int(result)
    return int(ExitStatus.SUCCESS)


def _error(message: str) -> None:
    """A user-facing failure: one line on stderr, no traceback."""
    typer.echo(f"agent: error: {message}", err=True)


def _command_path(args: Sequence[str]) -> str:
    """`agent fix` for `fix /x --target gpu`: the (sub)command words before the first option."""
    group = typer.main.get_command(app)
    words = ["agent"]
    for arg in args:
        commands = getattr(group, "commands", {})
        if arg not in commands:
            break
        words.append(arg)
        group = commands[arg]
    return " ".join(words)


if __name__ == "__main__":
    sys.exit(main())
