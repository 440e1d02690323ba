"""torchport's Triton-free kernel library: pure NumPy, float32 compute, bfloat16/float16 handled
by explicit rounding (`precision`). Each module works alone on plain arrays and doubles as a
reference implementation; the emulated `tpu`/`neuron` runtime computes with it."""
