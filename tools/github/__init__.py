"""Push a delivered branch and open or update its pull request through the GitHub REST API.
See README.md for the files; `tools.github.testing` ships a local fake GitHub for tests."""
