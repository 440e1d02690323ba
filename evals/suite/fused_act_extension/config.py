"""Run settings shared by the training script and the tests."""

DEVICE = "cuda"
STEPS = 150
BATCH = 128
