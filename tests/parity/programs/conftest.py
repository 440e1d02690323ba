"""The folders here are small programs the parity tests run (each with its own `tests/`, as a
repository has): pytest must not collect them."""

collect_ignore_glob = ["*/*"]
