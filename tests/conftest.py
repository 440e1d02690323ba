"""Suite-wide rules for the `docker` and `gpu` markers.

`docker` tests skip when no Docker engine answers, except when `TORCHPORT_REQUIRE_DOCKER=1` (CI),
where they fail instead: a CI run must never pass by skipping its isolation tests.
`gpu` tests skip unless PyTorch sees a CUDA GPU.
"""

import functools
import os

import pytest


@functools.cache
def docker_engine_problem() -> str | None:
    """None when a Docker engine answers a ping, else why not."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
    except Exception as exc:  # any failure to reach the engine means "no engine"
        return f"no Docker engine reachable: {exc}"
    return None


@functools.cache
def cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("docker"):
        problem = docker_engine_problem()
        if problem:
            if os.environ.get("TORCHPORT_REQUIRE_DOCKER") == "1":
                pytest.fail(f"TORCHPORT_REQUIRE_DOCKER=1 but {problem}")
            pytest.skip(problem)
    if item.get_closest_marker("gpu") and not cuda_available():
        pytest.skip("needs an NVIDIA GPU with CUDA")
