"""The one typed settings object, built once from four layers.

Precedence, lowest to highest: defaults < the target repo's config (`[tool.torchport]` in its
`pyproject.toml`, then `torchport.toml`, which wins) < `TORCHPORT_*` environment variables
(nested keys with `__`: `TORCHPORT_SANDBOX__MEMORY_MB=2048`; the standard `OPENAI_BASE_URL`,
`OPENAI_API_KEY` and `OPENAI_MODEL` fill the `llm` section below `TORCHPORT_LLM__*`) < CLI flags.

Bad keys and values raise `BadInputError` naming the layer they came from.
"""

import copy
import difflib
import json
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from agent.errors import BadInputError
from tools.parity.spec import ParitySpec


class Target(StrEnum):
    """What a migration moves the code to."""

    TPU = "tpu"
    NEURON = "neuron"
    AGNOSTIC = "agnostic"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


class LLMSettings(_Section):
    """The OpenAI-compatible endpoint; with no model configured the agent runs rules only."""

    model: str | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(4, ge=0)
    retry_backoff_s: float = Field(1.0, ge=0, description="first retry delay; doubles per retry")
    max_turns: int = Field(12, ge=1, description="model calls per edit session")
    temperature: float = Field(0.0, ge=0, le=2)
    input_cost_per_mtok: float = Field(0.0, ge=0, description="USD per million prompt tokens")
    output_cost_per_mtok: float = Field(0.0, ge=0, description="USD per million completion tokens")


class BudgetSettings(_Section):
    """Bounds on the agent loop."""

    max_iterations: int = Field(8, ge=1)
    max_tokens: int = Field(400_000, ge=0)
    max_cost_usd: float = Field(10.0, ge=0)
    timeout_s: float = Field(3600.0, gt=0)


class SandboxSettings(_Section):
    """Where untrusted repo code runs, and the limits it runs under."""

    type: Literal["auto", "docker", "local"] = "auto"
    image: str | None = Field(None, description="Docker image; default torchport-sandbox:<version>")
    isolation: Literal["auto", "bwrap", "unshare"] = Field(
        "auto", description="local sandbox: bubblewrap, or unshare (no file isolation)"
    )
    memory_mb: int = Field(4096, ge=64)
    cpus: float = Field(2.0, gt=0)
    pids: int = Field(512, ge=16)
    timeout_s: float = Field(600.0, gt=0)
    output_cap_bytes: int = Field(1_000_000, ge=1024)


class ScanSettings(_Section):
    """The lock-in scanner."""

    ignore: list[str] = Field(default_factory=list, description="gitignore-style paths to skip")
    fail_on: Literal["none", "low", "medium", "high", "any"] = "none"


class ParitySettings(ParitySpec):
    """How migrated outputs are compared with the reference: `tools.parity.spec.ParitySpec`
    (print_patterns, rtol, atol, tolerances, protected, reference, golden_dir, …)."""


class Settings(_Section):
    """Everything a torchport run can be configured with."""

    target: Target | None = None
    chip: str | None = None
    run: list[str] = Field(default_factory=list, description="commands that exercise the repo")
    run_dir: Path | None = None
    no_llm: bool = False
    llm: LLMSettings = Field(default_factory=LLMSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    scan: ScanSettings = Field(default_factory=ScanSettings)
    parity: ParitySettings = Field(default_factory=ParitySettings)


ENV_PREFIX = "TORCHPORT_"
# Variables with these prefixes are not settings: the emulated runtime's own switches, the
# GitHub Action's inputs and the test suite's. They are read by those parts directly.
NON_SETTING_ENV_PREFIXES = (
    "TORCHPORT_RT_",
    "TORCHPORT_REQUIRE_",
    "TORCHPORT_TEST_",
    "TORCHPORT_ACTION_",
)
SETTINGS_HINT = "the README's Configuration section lists every key"
OPENAI_ENV = {"OPENAI_BASE_URL": "base_url", "OPENAI_API_KEY": "api_key", "OPENAI_MODEL": "model"}


class _Layer:
    """One source of settings: a name for messages and the nested values it provides."""

    def __init__(self, name: str, values: dict[str, Any]) -> None:
        self.name = name
        self.values = values


def load_settings(
    repo: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build and validate the settings for a run on `repo` (layers as in the module docstring).

    `overrides` are CLI flags as nested keys; `None` values mean "flag not given" and are dropped.
    """
    layers = [
        *_repo_layers(repo),
        _Layer("environment", _env_values({} if env is None else env)),
        _Layer("command line", _drop_none(dict(overrides or {}))),
    ]
    merged: dict[str, Any] = {}
    for layer in layers:
        _deep_merge(merged, layer.values)
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise BadInputError(_explain(exc, layers), hint=SETTINGS_HINT) from None


def _repo_layers(repo: Path | None) -> list[_Layer]:
    if repo is None or not repo.is_dir():
        return []
    layers = []
    pyproject = repo / "pyproject.toml"
    if pyproject.is_file():
        table = _read_toml(pyproject).get("tool", {}).get("torchport", {})
        layers.append(_Layer(f"{pyproject} [tool.torchport]", table))
    own = repo / "torchport.toml"
    if own.is_file():
        layers.append(_Layer(str(own), _read_toml(own)))
    return layers


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path}: not valid TOML: {exc}", hint="fix the file") from None


def _env_values(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    llm = {key: env[name] for name, key in OPENAI_ENV.items() if env.get(name)}
    if llm:
        values["llm"] = llm
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name.startswith(NON_SETTING_ENV_PREFIXES):
            continue
        path = name[len(ENV_PREFIX) :].lower().split("__")
        node = values
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise BadInputError(f"environment variable {name} conflicts with another one")
        node[path[-1]] = _parse_env_value(raw)
    return values


def _parse_env_value(raw: str) -> Any:
    """JSON for lists and objects (`TORCHPORT_RUN='["python train.py"]'`), else the string."""
    if raw.strip().startswith(("[", "{")):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    cleaned: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            value = _drop_none(value)
            if not value:
                continue
        if value is not None:
            cleaned[key] = value
    return cleaned


def _deep_merge(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for key, value in new.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)


def _source_of(loc: tuple[int | str, ...], layers: list[_Layer]) -> str:
    for layer in reversed(layers):
        node: Any = layer.values
        for part in loc:
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            return layer.name
    return "defaults"


def _explain(exc: ValidationError, layers: list[_Layer]) -> str:
    problems = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        dotted = ".".join(str(part) for part in loc)
        source = _source_of(loc, layers)
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown setting '{dotted}' in {source}{_suggest(loc)}")
        else:
            shown = error.get("input")
            problems.append(f"bad value for '{dotted}' in {source}: {error['msg']} (got {shown!r})")
    return "invalid settings: " + "; ".join(problems)


def _suggest(loc: tuple[int | str, ...]) -> str:
    model: type[BaseModel] = Settings
    for part in loc[:-1]:
        annotation = model.model_fields.get(str(part))
        if annotation is None or not isinstance(annotation.annotation, type):
            return ""
        if not issubclass(annotation.annotation, BaseModel):
            return ""
        model = annotation.annotation
    close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1)
    return (
        f"; did you mean '{close[0]}'?"
        if close
        else f"; valid keys: {', '.join(model.model_fields)}"
    )
