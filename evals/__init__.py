"""The benchmark suite, the evaluation harness and performance benchmarks."""
