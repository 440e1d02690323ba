"""GPU profiles: what `torch.cuda.get_device_properties` reports, and the figures the RNG needs.

The SM count and threads per SM decide how PyTorch's CUDA random kernels lay out their values,
so the profile must match the GPU the original ran on for seeded device-side sampling to agree.
"""

from dataclasses import dataclass

GIB = 1 << 30
MIB = 1 << 20


@dataclass(frozen=True)
class GpuProfile:
    """One GPU model, as `cudaGetDeviceProperties` describes it."""

    key: str
    name: str
    total_memory: int
    multi_processor_count: int
    max_threads_per_multi_processor: int
    major: int
    minor: int
    l2_cache_size: int
    warp_size: int = 32
    regs_per_multiprocessor: int = 65536
    clock_rate_khz: int = 1410000
    memory_clock_rate_khz: int = 1215000
    memory_bus_width: int = 5120

    @property
    def capability(self) -> tuple[int, int]:
        """Compute capability (major, minor)."""
        return (self.major, self.minor)

    @property
    def arch(self) -> str:
        """The `sm_XY` architecture name."""
        return f"sm_{self.major}{self.minor}"


PROFILES: dict[str, GpuProfile] = {
    profile.key: profile
    for profile in (
        GpuProfile("A100", "NVIDIA A100-SXM4-80GB", 80 * GIB, 108, 2048, 8, 0, 40 * MIB),
        GpuProfile("A100-40GB", "NVIDIA A100-SXM4-40GB", 40 * GIB, 108, 2048, 8, 0, 40 * MIB),
        GpuProfile("H100", "NVIDIA H100 80GB HBM3", 80 * GIB, 132, 2048, 9, 0, 50 * MIB),
        GpuProfile("H200", "NVIDIA H200", 141 * GIB, 132, 2048, 9, 0, 60 * MIB),
        GpuProfile("V100", "Tesla V100-SXM2-16GB", 16 * GIB, 80, 2048, 7, 0, 6 * MIB),
        GpuProfile("T4", "Tesla T4", 15 * GIB, 40, 1024, 7, 5, 4 * MIB),
        GpuProfile("L4", "NVIDIA L4", 22 * GIB, 58, 1536, 8, 9, 48 * MIB),
        GpuProfile("A10G", "NVIDIA A10G", 22 * GIB, 80, 1536, 8, 6, 6 * MIB),
        GpuProfile("A6000", "NVIDIA RTX A6000", 48 * GIB, 84, 1536, 8, 6, 6 * MIB),
        GpuProfile("A4000", "NVIDIA RTX A4000", 16 * GIB, 48, 1536, 8, 6, 4 * MIB),
        GpuProfile("RTX3060", "NVIDIA GeForce RTX 3060", 12 * GIB, 28, 1536, 8, 6, 3 * MIB),
        GpuProfile("RTX4090", "NVIDIA GeForce RTX 4090", 24 * GIB, 128, 1536, 8, 9, 72 * MIB),
    )
}

DEFAULT_PROFILE = "A100"


class UnknownProfileError(ValueError):
    """The requested GPU profile is not one this runtime knows."""


def resolve_profile(name: str | None) -> GpuProfile:
    """The profile named `name` (case-insensitive; None means the A100 default)."""
    if not name:
        return PROFILES[DEFAULT_PROFILE]
    for key, profile in PROFILES.items():
        if key.lower() == name.lower():
            return profile
    raise UnknownProfileError(
        f"unknown GPU profile {name!r} for the reference runtime; "
        f"known profiles: {', '.join(PROFILES)} (set TORCHPORT_CHIP to one of them)"
    )
