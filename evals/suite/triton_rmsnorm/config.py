"""Run settings shared by the scripts and the tests."""

DEVICE = "cuda"
SEED = 1234
