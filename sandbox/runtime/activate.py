"""Install the runtime for a target into the current interpreter, before user code runs."""

import os
from collections.abc import Mapping

from sandbox.runtime import env as runtime_env

_installed: str | None = None


class RuntimeActivationError(RuntimeError):
    """The runtime cannot be installed as asked (unknown target or chip)."""


def activate(target: str, *, chip: str | None = None, results_dir: str | None = None) -> None:
    """Switch this process to `target`. A second call with the same target does nothing."""
    global _installed
    if target not in runtime_env.TARGETS:
        raise RuntimeActivationError(
            f"unknown runtime target {target!r}; expected one of {', '.join(runtime_env.TARGETS)}"
        )
    if _installed == target:
        return
    if _installed is not None:
        raise RuntimeActivationError(f"runtime already active as {_installed!r}, not {target!r}")
    if target in ("tpu", "neuron"):
        from sandbox.runtime.device import install_device

        install_device(target, chip=chip, results_dir=results_dir)
    elif target == "reference":
        from sandbox.runtime.reference import install_reference

        install_reference(profile=chip, results_dir=results_dir)
    if results_dir:
        from sandbox.runtime.probes import install_probes

        install_probes(results_dir)
    _installed = target
    os.environ[runtime_env.ACTIVE] = target


def activate_from_env(environ: Mapping[str, str] | None = None) -> None:
    """Activate from `TORCHPORT_TARGET`/`TORCHPORT_CHIP`/`TORCHPORT_RT_OUT`; no-op when unset."""
    values = os.environ if environ is None else environ
    target = values.get(runtime_env.TARGET)
    if target:
        activate(
            target,
            chip=values.get(runtime_env.CHIP) or None,
            results_dir=values.get(runtime_env.RESULTS_DIR) or None,
        )
