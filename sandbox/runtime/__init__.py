"""The runtime loaded into the sandboxed Python: emulated `tpu`/`neuron` devices, the CUDA-on-CPU
reference mode, probes and metrics. Imports nothing from torchport outside `sandbox.runtime` and
`sandbox.kernels`, so that only these two packages need to be present in the sandbox."""
