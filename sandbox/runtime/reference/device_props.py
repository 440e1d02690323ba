"""`torch.cuda.get_device_properties()` for a GPU profile."""

import uuid

from sandbox.runtime.reference.profiles import GpuProfile


class DeviceProperties:
    """The attributes of `torch._C._CudaDeviceProperties` that programs read."""

    def __init__(self, profile: GpuProfile, index: int) -> None:
        self.name = profile.name
        self.major = profile.major
        self.minor = profile.minor
        self.total_memory = profile.total_memory
        self.multi_processor_count = profile.multi_processor_count
        self.max_threads_per_multi_processor = profile.max_threads_per_multi_processor
        self.max_threads_per_block = 1024
        self.max_threads_per_multiprocessor = profile.max_threads_per_multi_processor
        self.warp_size = profile.warp_size
        self.regs_per_multiprocessor = profile.regs_per_multiprocessor
        self.L2_cache_size = profile.l2_cache_size
        self.shared_memory_per_block = 49152
        self.shared_memory_per_block_optin = 232448 if profile.major >= 9 else 166912
        self.shared_memory_per_multiprocessor = 233472 if profile.major >= 9 else 167936
        self.clock_rate = profile.clock_rate_khz
        self.memory_clock_rate = profile.memory_clock_rate_khz
        self.memory_bus_width = profile.memory_bus_width
        self.is_integrated = 0
        self.is_multi_gpu_board = 0
        self.gcnArchName = "NVIDIA"
        self.pci_bus_id = index
        self.pci_device_id = 0
        self.pci_domain_id = 0
        self.uuid = uuid.uuid5(uuid.NAMESPACE_OID, f"torchport-reference-{profile.key}-{index}")

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1 << 20)}MB, "
            f"multi_processor_count={self.multi_processor_count}, uuid={self.uuid}, "
            f"L2_cache_size={self.L2_cache_size // (1 << 20)}MB)"
        )
