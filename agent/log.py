"""Logging: one root logger, `torchport`, with a rich console handler on stderr."""

import logging

from rich.console import Console
from rich.logging import RichHandler

ROOT_LOGGER = "torchport"

_LEVELS = {-1: logging.WARNING, 0: logging.INFO, 1: logging.DEBUG}


def get_logger(module_name: str) -> logging.Logger:
    """The logger for a module, under the `torchport` root (`torchport.tools.scanner`, …)."""
    return logging.getLogger(f"{ROOT_LOGGER}.{module_name}")


def configure_logging(verbosity: int = 0, console: Console | None = None) -> logging.Logger:
    """Attach one rich handler to the `torchport` logger; -1 quiet, 0 normal, 1 verbose.

    Calling it again replaces the handler, so in-process CLI runs (tests) do not stack handlers.
    """
    root = logging.getLogger(ROOT_LOGGER)
    for handler in list(root.handlers):
        if getattr(handler, "_torchport", False):
            root.removeHandler(handler)
    handler = RichHandler(
        console=console or Console(stderr=True),
        show_time=verbosity > 0,
        show_path=verbosity > 0,
        markup=False,
        rich_tracebacks=verbosity > 0,
    )
    handler._torchport = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(_LEVELS[max(-1, min(1, verbosity))])
    root.propagate = False
    return root
