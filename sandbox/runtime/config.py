"""The runtime switches of one emulated-device process, read once from the environment."""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from sandbox.runtime import env as runtime_env
from sandbox.runtime.profiles import ProfileError, TargetProfile, load_profile
from sandbox.runtime.reference.profiles import (
    PROFILES,
    GpuProfile,
    UnknownProfileError,
    resolve_profile,
)

FallbackMode = Literal["allow", "warn", "error"]
_FALLBACK_MODES: dict[str, FallbackMode] = {"allow": "allow", "warn": "warn", "error": "error"}
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
}


@dataclass(frozen=True)
class RuntimeConfig:
    """Everything the emulated device needs to know about this process."""

    profile: TargetProfile
    memory_budget: int
    fallback: FallbackMode
    threads: int
    results_dir: str | None
    rng_gpu: GpuProfile
    """The GPU whose Philox layout random draws follow: the reference's, so values agree."""

    @property
    def strict(self) -> bool:
        """Whether the first fallback op is an error."""
        return self.fallback == "error"


def parse_bytes(text: str) -> int:
    """`"64MiB"`, `"2GiB"`, `"1.5GB"` or `"4096"` as a byte count."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _UNITS:
        raise ProfileError(
            f"{runtime_env.MEMORY}={text!r} is not a size; write e.g. 64MiB, 2GiB or 4096"
        )
    return int(float(match.group(1)) * _UNITS[unit])


def load_config(
    target: str, chip: str | None, results_dir: str | None, environ: Mapping[str, str]
) -> RuntimeConfig:
    """Build the config of `target`/`chip` from the TORCHPORT_RT_* variables in `environ`."""
    profile = load_profile(target, chip, environ.get(runtime_env.FLOAT64) or None)
    budget_text = environ.get(runtime_env.MEMORY)
    budget = parse_bytes(budget_text) if budget_text else profile.memory_budget
    mode_text = (environ.get(runtime_env.FALLBACK) or "allow").lower()
    mode = _FALLBACK_MODES.get(mode_text)
    if mode is None:
        raise ProfileError(f"{runtime_env.FALLBACK}={mode_text!r}; expected allow, warn or error")
    if environ.get(runtime_env.STRICT, "").lower() in ("1", "true", "yes"):
        mode = "error"
    threads_text = environ.get(runtime_env.THREADS, "1")
    if not threads_text.isdigit():
        raise ProfileError(f"{runtime_env.THREADS}={threads_text!r}; expected a thread count")
    rng_gpu_text = environ.get(runtime_env.RNG_GPU) or None
    try:
        rng_gpu = resolve_profile(rng_gpu_text)
    except UnknownProfileError:
        raise ProfileError(
            f"{runtime_env.RNG_GPU}={rng_gpu_text!r} is not a GPU profile; "
            f"use one of {', '.join(PROFILES)}"
        ) from None
    return RuntimeConfig(profile, budget, mode, int(threads_text), results_dir, rng_gpu)
