"""The sandbox image: build once, then found current; its labels and contents."""

import pytest

from agent.errors import BadInputError
from sandbox.docker_engine import connect, image_status
from sandbox.image.build import (
    LABEL_BASE,
    LABEL_HASH,
    LOCAL_BASE,
    BuildOptions,
    build_image,
    build_options,
    content_hash,
    default_image_tag,
    is_current,
    pinned_requirements,
)


def test_tag_and_pins_follow_this_install() -> None:
    from importlib import metadata

    from agent import __version__

    assert default_image_tag() == f"torchport-sandbox:{__version__}"
    torch_pin, numpy_pin, pytest_pin = pinned_requirements()
    assert torch_pin == "torch==" + metadata.version("torch").split("+")[0]
    assert numpy_pin == "numpy==" + metadata.version("numpy")
    assert pytest_pin == "pytest==" + metadata.version("pytest")


def test_options_pick_the_base_and_index_by_mode() -> None:
    online = build_options()
    assert (online.base, online.offline) == ("python:3.11-slim", False)
    assert online.torch_index == "https://download.pytorch.org/whl/cpu"
    offline = build_options(offline=True, extras=("triton",))
    assert (offline.base, offline.extras) == (LOCAL_BASE, ("triton",))
    assert offline.tag == default_image_tag()
    with pytest.raises(BadInputError, match="no use with --offline"):
        build_options(offline=True, torch_index="https://example.org/simple")


@pytest.mark.docker
@pytest.mark.slow
def test_building_twice_builds_once_and_the_image_is_current() -> None:
    client = connect()
    base = LOCAL_BASE if image_status(client, LOCAL_BASE).present else "python:3.11-slim"
    options = BuildOptions(base=base, offline=base == LOCAL_BASE)
    build_image(client, options)
    again = build_image(client, options)
    assert not again.built
    assert again.seconds < 5
    status = image_status(client, options.tag)
    assert is_current(status)
    assert status.label(LABEL_HASH) == content_hash()
    assert status.label(LABEL_BASE) == base
    user = client.containers.run(
        options.tag,
        ["python", "-c", "import os; print(os.getuid())"],
        network_mode="none",
        remove=True,
    )
    assert user.strip() == b"10001"
