"""Exceptions that end a command with a named exit status.

This module is a leaf: `tools`, `sandbox` (host side) and `evals` may raise these without
importing anything else from `agent`. Each error carries what to do next (`hint`).
"""

from agent.exit_status import ExitStatus


class TorchportError(Exception):
    """Base class: a failure with a one-line message, an optional hint and an exit status."""

    status: ExitStatus = ExitStatus.INTERNAL_ERROR

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and the hint on one line, as the CLI prints it."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


class BadInputError(TorchportError):
    """The user asked for something that cannot work: wrong path, target, setting or repo."""

    status = ExitStatus.BAD_INPUT


class InfraError(TorchportError):
    """Something outside torchport failed: Docker, the sandbox, an LLM endpoint, git or GitHub."""

    status = ExitStatus.INFRA_FAILURE


class NotAvailableError(TorchportError):
    """A command or option that is not built yet."""

    status = ExitStatus.NOT_AVAILABLE
