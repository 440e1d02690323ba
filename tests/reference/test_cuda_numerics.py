"""Reduced-precision kernels whose CPU arithmetic is not CUDA's run as CUDA runs them."""

from pathlib import Path

from tests.reference.helpers import run_program


def test_bf16_and_fp16_log_softmax_round_once_as_on_cuda(tmp_path: Path) -> None:
    outcome = run_program("log_softmax_bf16.py", tmp_path)
    assert outcome.process.returncode == 0, outcome.process.stderr
    lines = outcome.process.stdout.split("\n")
    assert "torch.bfloat16 cuda_like True" in lines
    assert "torch.float16 cuda_like True" in lines
    assert "cross_entropy_cuda_like True" in lines
    assert "torch.bfloat16 cpu_kernel_on_cpu True" in lines  # CPU tensors keep the CPU kernel
