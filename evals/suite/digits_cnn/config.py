"""Training configuration."""

DEVICE = "cuda:0"
SEED = 7
BATCH_SIZE = 64
EPOCHS = 2
LR = 0.05
MOMENTUM = 0.9
NUM_WORKERS = 0
TRAIN_SIZE = 1536
TEST_SIZE = 512
IMAGE_SIZE = 12
CHECKPOINT = "digits_cnn.pt"
