"""The CUDA-first programs the reference tests run: pytest must not collect them."""

collect_ignore_glob = ["*.py"]
