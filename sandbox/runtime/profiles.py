"""Target profiles of the emulated accelerators: which chips exist, how much device memory each
device has, and the numeric rules the chip enforces. The one place these facts are written down
(sources: shared/reference/migration-rules.md §3)."""

from dataclasses import dataclass
from typing import Literal

Policy = Literal["error", "warn", "allow"]
"""What the runtime does when a program meets a dtype the chip lacks or discourages."""
POLICIES: tuple[Policy, ...] = ("error", "warn", "allow")

GiB = 1 << 30


@dataclass(frozen=True)
class ChipProfile:
    """One chip generation: device memory per addressable device and how it is counted."""

    name: str
    hbm_bytes: int
    devices_per_chip: int
    note: str


@dataclass(frozen=True)
class TargetProfile:
    """The behaviour of one emulated target on one chip."""

    target: str
    chip: ChipProfile
    float64: Policy
    float16: Policy
    behaviours: tuple[str, ...]

    @property
    def memory_budget(self) -> int:
        """Device memory one device may hold before allocation fails."""
        return self.chip.hbm_bytes


CHIPS: dict[str, dict[str, ChipProfile]] = {
    "tpu": {
        "v4": ChipProfile("v4", 32 * GiB, 1, "32 GiB HBM2, two TensorCores fused (megacore)"),
        "v5e": ChipProfile("v5e", 16 * GiB, 1, "16 GiB HBM2, one TensorCore"),
        "v5p": ChipProfile("v5p", 95 * GiB, 1, "95 GiB HBM2e, megacore"),
        "v6e": ChipProfile("v6e", 32 * GiB, 1, "32 GiB HBM (Trillium)"),
    },
    "neuron": {
        "trn1": ChipProfile("trn1", 16 * GiB, 2, "32 GiB per chip shared by 2 NeuronCore-v2"),
        "trn2": ChipProfile("trn2", 24 * GiB, 4, "96 GiB per chip, 4 logical cores at LNC=2"),
    },
}
DEFAULT_CHIP = {"tpu": "v5e", "neuron": "trn2"}

_COMMON_BEHAVIOURS = (
    "PrivateUse1 device renamed to the target; one device per process (index 0)",
    "ops without a native kernel run on a counted CPU fallback (reported as ops not lowered)",
    "device memory budget per device; exceeding it raises RESOURCE_EXHAUSTED out-of-memory",
    "float64 on the device is an error by default (the chip has no float64 unit)",
    "autocast defaults to bfloat16; matmul-class ops run in bf16 with float32 accumulation",
    "torch.cuda is unavailable and CUDA device calls fail; import triton fails",
    "torch.distributed collectives for device tensors through the target's backend; nccl fails",
    "host syncs (.item(), .cpu(), printing) and host<->device transfers are counted",
)
_BEHAVIOURS = {
    "tpu": (*_COMMON_BEHAVIOURS, "float16 warns: the TPU computes in bfloat16"),
    "neuron": (*_COMMON_BEHAVIOURS, "float16 is native on Trainium and allowed"),
}
_FLOAT16: dict[str, Policy] = {"tpu": "warn", "neuron": "allow"}
_POLICY_BY_NAME: dict[str, Policy] = {policy: policy for policy in POLICIES}


class ProfileError(ValueError):
    """An unknown target or chip, or an invalid policy value."""


def load_profile(target: str, chip: str | None = None, float64: str | None = None) -> TargetProfile:
    """The profile of `target` on `chip` (its default chip when None), optionally with another
    float64 policy."""
    if target not in CHIPS:
        raise ProfileError(f"no emulated device for target {target!r}; expected tpu or neuron")
    chip_name = chip or DEFAULT_CHIP[target]
    chips = CHIPS[target]
    if chip_name not in chips:
        raise ProfileError(
            f"unknown {target} chip {chip_name!r} (TORCHPORT_CHIP); expected one of "
            f"{', '.join(chips)}"
        )
    policy = _POLICY_BY_NAME.get(float64 or "error")
    if policy is None:
        raise ProfileError(f"TORCHPORT_RT_FLOAT64={float64!r}; expected error, warn or allow")
    return TargetProfile(
        target=target,
        chip=chips[chip_name],
        float64=policy,
        float16=_FLOAT16[target],
        behaviours=_BEHAVIOURS[target],
    )
