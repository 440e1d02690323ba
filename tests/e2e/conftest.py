"""Shared set-up for end-to-end runs of `agent fix`: the environment the CLI sees."""

import os
from pathlib import Path

import pytest


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    """A clean environment for in-process `agent fix`: local sandbox, fast LLM retries."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "TORCHPORT_SANDBOX__TYPE": "local",
        "TORCHPORT_LLM__RETRY_BACKOFF_S": "0.01",
    }
