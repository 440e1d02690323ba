"""owner/name from remote URLs and from what a person types."""

import pytest

from agent.errors import BadInputError
from tools.github.remote import RepoSlug, parse_slug, slug_from_remote_url


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/octo/demo.git",
        "https://github.com/octo/demo",
        "https://github.com/octo/demo/",
        "https://x-access-token:abc@github.com/octo/demo.git",
        "http://ghe.example.com/octo/demo.git",
        "ssh://git@github.com/octo/demo.git",
        "ssh://git@ghe.example.com:2222/octo/demo.git",
        "git://github.com/octo/demo.git",
        "git@github.com:octo/demo.git",
        "git@github.com:octo/demo",
        "github.com:octo/demo.git",
    ],
)
def test_remote_url_forms(url: str) -> None:
    assert slug_from_remote_url(url) == RepoSlug("octo", "demo")


def test_names_with_dots_and_dashes() -> None:
    assert slug_from_remote_url("git@github.com:my-org/torch.port-x.git") == RepoSlug(
        "my-org", "torch.port-x"
    )


@pytest.mark.parametrize(
    "url",
    [
        "/srv/git/demo.git",
        "../demo.git",
        "file:///srv/git/demo.git",
        "C:\\repos\\demo.git",
        "https://gitlab.example.com/group/sub/demo.git",
        "https://github.com/just-owner",
    ],
)
def test_local_paths_and_other_shapes_are_not_github(url: str) -> None:
    assert slug_from_remote_url(url) is None


def test_parse_slug() -> None:
    assert str(parse_slug(" octo/demo ", source="--repo")) == "octo/demo"
    with pytest.raises(BadInputError, match="--repo 'octo' is not a GitHub repository name"):
        parse_slug("octo", source="--repo")
