"""What to run: `--run` flags, else `run = [...]` in the repo's config, else discovery (the repo's
pytest suite, or an entry script its README names)."""

import re
from pathlib import Path

from agent.errors import BadInputError

_README_COMMAND = re.compile(r"^\s*(?:\$\s*)?(python3?\s+(?!-m\s+pip)\S+\.py(?:\s+[^\n#|&;<>]*)?)$")
NO_COMMAND_HINT = (
    "pass --run 'python train.py' (repeatable) or set run = [\"python train.py\"] under "
    "[tool.torchport] in the repo's pyproject.toml"
)


def resolve_commands(from_cli: list[str], from_settings: list[str], repo: Path) -> list[str]:
    """The commands a run executes, in order of precedence; BadInputError when none is found."""
    if from_cli:
        return list(from_cli)
    if from_settings:
        return list(from_settings)
    discovered = discover_commands(repo)
    if not discovered:
        raise BadInputError(f"no run command for {repo}", hint=NO_COMMAND_HINT)
    return discovered


def discover_commands(repo: Path) -> list[str]:
    """The repo's pytest suite if it has one, else the first `python x.py` its README shows."""
    if _has_pytest_suite(repo):
        return ["python -m pytest -q -x"]
    for readme in sorted(repo.glob("README*")):
        for line in readme.read_text(encoding="utf-8", errors="replace").splitlines():
            found = _README_COMMAND.match(line)
            if found and (repo / found.group(1).split()[1]).is_file():
                return [found.group(1).strip()]
    return []


def _has_pytest_suite(repo: Path) -> bool:
    candidates = [
        *repo.glob("test_*.py"),
        *repo.glob("tests/test_*.py"),
        *repo.glob("tests/*_test.py"),
    ]
    return bool(candidates)
