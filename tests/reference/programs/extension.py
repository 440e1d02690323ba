"""A program with a custom CUDA kernel compiled by nvcc: it cannot run on the CPU reference."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA_SOURCE = "__global__ void scale(float* x) { x[threadIdx.x] *= 2; }"
module = load_inline(name="scale_ext", cpp_sources="", cuda_sources=CUDA_SOURCE)
print(module)
print(torch.ones(3).cuda())
