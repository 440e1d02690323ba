"""Run git through gitpython with torchport's environment and turn failures into InfraError."""

from collections.abc import Mapping

from git import GitCommandError, Repo

from agent.errors import InfraError

QUIET_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
"""No opportunistic index refresh (so reading never rewrites the user's index), never a prompt."""


def git_output(repo: Repo, *args: str, env: Mapping[str, str] | None = None) -> str:
    """The stripped stdout of `git <args>` run at the repository root; InfraError on failure."""
    try:
        out = repo.git.execute(["git", *args], env={**QUIET_ENV, **(env or {})})
    except GitCommandError as exc:
        raise InfraError(
            f"`git {_subcommand(args)}` failed in {repo.working_dir}: {git_message(exc)}",
            hint="the message above is git's own; fix the repository state it names and rerun",
        ) from exc
    return str(out)


def git_bytes(repo: Repo, *args: str) -> bytes:
    """The raw stdout of a read-only `git <args>` (paths with any bytes survive); InfraError."""
    try:
        out = repo.git.execute(
            ["git", *args],
            env=QUIET_ENV,
            stdout_as_string=False,
            strip_newline_in_stdout=False,
        )
    except GitCommandError as exc:
        raise InfraError(
            f"`git {_subcommand(args)}` failed in {repo.working_dir}: {git_message(exc)}",
            hint="the message above is git's own; fix the repository state it names and rerun",
        ) from exc
    if not isinstance(out, bytes):
        raise TypeError(f"gitpython returned {type(out).__name__} for `git {_subcommand(args)}`")
    return out


def git_succeeds(repo: Repo, *args: str) -> bool:
    """Whether `git <args>` exits with status 0 (for questions such as `cat-file -e`)."""
    status, _, _ = repo.git.execute(
        ["git", *args], env=QUIET_ENV, with_extended_output=True, with_exceptions=False
    )
    return status == 0


def git_message(exc: GitCommandError) -> str:
    """git's own error text from a failed command, on one line."""
    stderr = exc.stderr if isinstance(exc.stderr, str) else str(exc.stderr or "")
    text = stderr.strip().removeprefix("stderr:").strip().strip("'").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " / ".join(lines) if lines else f"exit status {exc.status}"


def _subcommand(args: tuple[str, ...]) -> str:
    """The git subcommand in `args`, past global options such as `-c key=value`."""
    rest = list(args)
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] == "-c" else rest[1:]
    return rest[0] if rest else "git"
