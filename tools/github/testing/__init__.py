"""A local fake of the GitHub REST endpoints torchport uses, over real HTTP, for tests and demos.

See README.md; start it with `FakeGitHubServer()` or `python -m tools.github.testing.fake_server`.
"""
