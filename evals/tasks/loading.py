"""Read `task.toml` files into TaskSpecs, with errors that name the file and the key."""

import fnmatch
import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agent.errors import BadInputError
from evals.tasks.spec import TaskSpec

TASK_FILE = "task.toml"
SUITE_DIR = Path(__file__).resolve().parents[1] / "suite"
"""The suite shipped with torchport: one folder per case."""
SCHEMA_HINT = "evals/tasks/README.md describes every key of task.toml"
ModelT = TypeVar("ModelT", bound=BaseModel)


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML file; BadInputError when it is missing or malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise BadInputError(f"{path}: no such file", hint=SCHEMA_HINT) from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInputError(f"{path}: not valid TOML: {exc}", hint=SCHEMA_HINT) from exc


def validation_message(path: Path, exc: ValidationError) -> str:
    """One line per problem: `file: key 'expected.tpu': what is wrong`."""
    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown key"
        elif error["type"] == "missing":
            message = "missing (required)"
        lines.append(f"{path}: key '{key}': {message}" if key else f"{path}: {message}")
    return "\n".join(lines)


def validate_model(model: type[ModelT], data: dict[str, Any], path: Path) -> ModelT:
    """`model.model_validate(data)`, with pydantic's errors turned into one BadInputError."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadInputError(validation_message(path, exc), hint=SCHEMA_HINT) from exc


def load_task(folder: Path) -> TaskSpec:
    """The validated spec of the case in `folder` (its `task.toml` and the files it names)."""
    folder = folder.resolve()
    path = folder / TASK_FILE
    data = read_toml(path)
    if "root" in data:
        raise BadInputError(f"{path}: key 'root': unknown key", hint=SCHEMA_HINT)
    spec = validate_model(TaskSpec, {**data, "root": folder}, path)
    check_files(spec, path)
    return spec


def check_files(spec: TaskSpec, path: Path, *, check_name: bool = True) -> None:
    """Checks that need the task's files: its name, its scripts, its protected globs."""
    if check_name and spec.name != spec.root.name:
        raise BadInputError(
            f"{path}: key 'name': {spec.name!r} differs from the folder name {spec.root.name!r}",
            hint="name the case after its folder",
        )
    for script in spec.scripts():
        if not (spec.root / script).is_file():
            raise BadInputError(
                f"{path}: key 'run': the command names {script}, which is not in {spec.root}",
                hint="fix the command or add the script",
            )
    files = [p.relative_to(spec.root).as_posix() for p in spec.root.rglob("*") if p.is_file()]
    for pattern in spec.parity.protected:
        if not any(fnmatch.fnmatch(name, pattern) for name in files):
            raise BadInputError(
                f"{path}: key 'parity.protected': {pattern!r} matches no file of the case",
                hint="protected globs are relative to the case folder",
            )


def load_suite(suite_dir: Path = SUITE_DIR, *, cases: str = "*") -> list[TaskSpec]:
    """Every case under `suite_dir` whose folder name matches the glob `cases`, by name."""
    if not suite_dir.is_dir():
        raise BadInputError(f"{suite_dir}: no such suite folder", hint="give --suite DIR")
    folders = sorted(p.parent for p in suite_dir.glob(f"*/{TASK_FILE}"))
    chosen = [folder for folder in folders if fnmatch.fnmatch(folder.name, cases)]
    if not chosen:
        known = ", ".join(folder.name for folder in folders) or "none"
        raise BadInputError(
            f"{suite_dir}: no case matches {cases!r}", hint=f"cases in the suite: {known}"
        )
    return [load_task(folder) for folder in chosen]
