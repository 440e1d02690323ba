"""Install the runtime for a target into the current interpreter, before user code runs."""

import os
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

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
        from sandbox.runtime.profiles import ProfileError

        try:
            install_device(target, chip=chip, results_dir=results_dir)
        except ProfileError as error:
            raise RuntimeActivationError(str(error)) from error
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


@contextmanager
def exit_on_activation_error() -> Iterator[None]:
    """Stop the interpreter when activation fails at interpreter start, where site.py would print
    the exception and run the program without the runtime (and SystemExit is a fatal error):
    exit status 2 with the message for a bad target/chip/setting, 1 with the traceback for
    anything else."""
    try:
        yield
    except RuntimeActivationError as error:
        _exit_now(2, f"torchport runtime: {error}\n")
    except Exception:
        _exit_now(1, "torchport runtime: activation failed\n" + traceback.format_exc())


def _exit_now(status: int, message: str) -> None:
    sys.stderr.write(message)
    sys.stderr.flush()
    os._exit(status)
