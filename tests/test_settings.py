"""Settings: each layer overrides the one below, and bad keys/values fail with the source named."""

from pathlib import Path

import pytest

from agent.errors import BadInputError
from agent.settings import Settings, Target, load_settings


def write_pyproject(repo: Path, body: str) -> None:
    (repo / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.torchport]\n{body}\n")


def test_defaults_when_nothing_is_configured(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, env={})
    assert settings == Settings()
    assert settings.sandbox.type == "auto"
    assert settings.llm.model is None


def test_precedence_defaults_repo_env_cli(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path,
        "target = 'neuron'\nrun = ['python a.py']\n"
        "[tool.torchport.sandbox]\nmemory_mb = 1000\ncpus = 1.0",
    )
    from_repo = load_settings(tmp_path, env={})
    assert from_repo.target is Target.NEURON
    assert from_repo.run == ["python a.py"]
    assert from_repo.sandbox.memory_mb == 1000

    env = {"TORCHPORT_SANDBOX__MEMORY_MB": "2000", "TORCHPORT_TARGET": "agnostic"}
    from_env = load_settings(tmp_path, env=env)
    assert from_env.sandbox.memory_mb == 2000
    assert from_env.sandbox.cpus == 1.0  # a sibling key from the repo layer survives the merge
    assert from_env.target is Target.AGNOSTIC

    from_cli = load_settings(
        tmp_path, env=env, overrides={"target": "tpu", "sandbox": {"memory_mb": 3000, "type": None}}
    )
    assert from_cli.target is Target.TPU
    assert from_cli.sandbox.memory_mb == 3000
    assert from_cli.sandbox.type == "auto"  # None means "flag not given"


def test_torchport_toml_wins_over_pyproject(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "target = 'neuron'\nchip = 'trn1'")
    (tmp_path / "torchport.toml").write_text("target = 'tpu'\n")
    settings = load_settings(tmp_path, env={})
    assert settings.target is Target.TPU
    assert settings.chip == "trn1"


def test_openai_environment_fills_llm_below_torchport_variables(tmp_path: Path) -> None:
    env = {
        "OPENAI_BASE_URL": "http://localhost:8000/v1",
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_MODEL": "m1",
    }
    settings = load_settings(tmp_path, env=env)
    assert settings.llm.base_url == "http://localhost:8000/v1"
    assert settings.llm.api_key is not None
    assert settings.llm.api_key.get_secret_value() == "sk-test"
    assert "sk-test" not in repr(settings)
    settings = load_settings(tmp_path, env={**env, "TORCHPORT_LLM__MODEL": "m2"})
    assert settings.llm.model == "m2"


def test_env_lists_are_json(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, env={"TORCHPORT_RUN": '["python a.py", "pytest -q"]'})
    assert settings.run == ["python a.py", "pytest -q"]


def test_runtime_and_test_variables_are_not_settings(tmp_path: Path) -> None:
    env = {"TORCHPORT_RT_STRICT": "1", "TORCHPORT_REQUIRE_DOCKER": "1"}
    assert load_settings(tmp_path, env=env) == Settings()


def test_unknown_repo_key_names_file_and_suggests(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.torchport.sandbox]\nmemroy_mb = 10")
    with pytest.raises(BadInputError) as info:
        load_settings(tmp_path, env={})
    message = info.value.one_line()
    assert "sandbox.memroy_mb" in message
    assert "pyproject.toml" in message
    assert "did you mean 'memory_mb'" in message


def test_bad_value_from_env_names_the_environment(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "[tool.torchport.sandbox]\nmemory_mb = 1000")
    with pytest.raises(BadInputError) as info:
        load_settings(tmp_path, env={"TORCHPORT_SANDBOX__MEMORY_MB": "lots"})
    assert "sandbox.memory_mb" in info.value.message
    assert "environment" in info.value.message
    assert "'lots'" in info.value.message


def test_bad_target_lists_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(BadInputError) as info:
        load_settings(tmp_path, env={}, overrides={"target": "gpu"})
    assert "command line" in info.value.message
    assert "'tpu'" in info.value.message
    assert "'agnostic'" in info.value.message


def test_unknown_env_setting_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="unknown setting 'sandbx'"):
        load_settings(tmp_path, env={"TORCHPORT_SANDBX__TYPE": "docker"})


def test_invalid_toml_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "torchport.toml").write_text("target = \n")
    with pytest.raises(BadInputError, match="not valid TOML"):
        load_settings(tmp_path, env={})
