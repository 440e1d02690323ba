"""The closed set of exit codes of the `agent` command line."""

from enum import IntEnum


class ExitStatus(IntEnum):
    """Every way an `agent` command can end. The value is the process exit code."""

    SUCCESS = 0
    """The command did what was asked (for `fix`/`parity`: the migrated code reached parity, or
    `fix` found nothing to migrate)."""
    NO_PARITY = 1
    """The migrated program ran but its outputs differ from the reference."""
    BAD_INPUT = 2
    """A user mistake: a missing path, an unknown target, a bad setting, a repo that won't parse."""
    BUDGET_EXHAUSTED = 3
    """The iteration, token, cost or time budget ran out before parity."""
    STUCK = 4
    """No progress: the same failure after an edit, or the same edit proposed again."""
    MANUAL_WORK = 5
    """What is left needs a person: no rule or model step can make progress."""
    INFRA_FAILURE = 6
    """The sandbox, Docker engine, LLM endpoint, git remote or GitHub API failed."""
    NOT_AVAILABLE = 7
    """The command exists but is not built yet."""
    FINDINGS = 8
    """`agent scan --fail-on LEVEL` found lock-in at or above LEVEL."""
    INTERNAL_ERROR = 70
    """A bug in torchport itself (the message says where the log is)."""
    INTERRUPTED = 130
    """Ctrl-C."""
