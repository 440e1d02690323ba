"""What the CPU reference cannot emulate, reported with the user's file:line.

Custom CUDA code (nvcc extensions, jiterator, CUDA graphs, GPU-only packages such as flash-attn,
and Triton when it is not installed) cannot run on the CPU. The runtime records each such use in
the metrics file (`reference.unavailable`), so the harness can say "reference unavailable: … at
file:line" and ask for golden probes or a GPU instead.
"""

import importlib.abc
import importlib.machinery
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from sandbox.runtime.reference.state import ReferenceState

GPU_ONLY_PACKAGES = {
    "flash_attn": "flash-attn (CUDA kernels)",
    "flash_attn_2_cuda": "flash-attn (CUDA kernels)",
    "xformers": "xformers (CUDA kernels)",
    "apex": "NVIDIA apex (CUDA extensions)",
    "bitsandbytes": "bitsandbytes (CUDA kernels)",
    "mamba_ssm": "mamba-ssm (CUDA kernels)",
    "causal_conv1d": "causal-conv1d (CUDA kernels)",
    "cupy": "CuPy (CUDA arrays)",
    "pycuda": "PyCUDA",
    "transformer_engine": "NVIDIA Transformer Engine",
    "triton": "Triton kernels (the triton package is not installed in the sandbox)",
}
"""Top-level modules that only exist with CUDA; importing one that is missing is recorded."""


def _internal_prefixes() -> tuple[str, ...]:
    """Folders whose frames are never the user's: torch, triton, the stdlib, this runtime."""
    import sysconfig

    import torch

    prefixes = [
        str(Path(torch.__file__).parent),
        str(Path(__file__).resolve().parents[1]),
        sysconfig.get_paths()["stdlib"],
    ]
    triton_file = getattr(sys.modules.get("triton"), "__file__", None)
    if triton_file:
        prefixes.append(str(Path(triton_file).parent))
    return tuple(prefixes)


class ReferenceUnavailableError(RuntimeError):
    """Raised where the program needs something the CPU reference cannot emulate."""


def user_location(stack: Sequence[traceback.FrameSummary] | None = None) -> tuple[str, int]:
    """(file, line) of the innermost frame in the user's code (not torch, not this runtime)."""
    frames = stack if stack is not None else traceback.extract_stack()
    internal = _internal_prefixes()
    for frame in reversed(frames):
        if frame.filename.startswith(internal) or frame.filename.startswith("<frozen"):
            continue
        return (_relative(frame.filename), frame.lineno or 0)
    return ("<unknown>", 0)


def _relative(filename: str) -> str:
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return filename


def record(state: ReferenceState, what: str, *, raise_error: bool = True) -> None:
    """Note that `what` cannot be emulated (at the user's current line) and raise it."""
    filename, line = user_location()
    entry = {"what": what, "file": filename, "line": line}
    if entry not in state.unavailable:
        state.unavailable.append(entry)
    if raise_error:
        raise ReferenceUnavailableError(
            f"reference unavailable: {what} at {filename}:{line} cannot run on the CPU reference"
        )


class GpuOnlyImportFinder(importlib.abc.MetaPathFinder):
    """Last on `sys.meta_path`: records imports of GPU-only packages that are not installed.

    It raises the usual ModuleNotFoundError, so programs that fall back keep working; the
    record only matters when the program then fails.
    """

    def __init__(self, state: ReferenceState) -> None:
        self.state = state

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in GPU_ONLY_PACKAGES and _imported_by_user():
            record(self.state, f"import of {GPU_ONLY_PACKAGES[fullname]}", raise_error=False)
        return None


def _imported_by_user() -> bool:
    """Whether the innermost importing frame is the program's own code (not a library)."""
    internal = _internal_prefixes()
    for frame in reversed(traceback.extract_stack()):
        name = frame.filename
        if name.startswith(("<frozen", internal[1])) or "importlib" in name:
            continue
        return not (name.startswith(internal) or "-packages/" in name)
    return False


def block_custom_cuda(state: ReferenceState) -> None:
    """Make nvcc extensions and jiterator fail with a precise message instead of a build error."""
    sys.meta_path.append(GpuOnlyImportFinder(state))
    import torch.utils.cpp_extension as cpp_extension

    originals = {name: getattr(cpp_extension, name) for name in ("load", "load_inline")}

    def guarded(name: str) -> Any:
        def load(*args: Any, **kwargs: Any) -> Any:
            sources = [*_as_list(kwargs.get("sources", args[1] if len(args) > 1 else []))]
            cuda_sources = kwargs.get("cuda_sources") or (args[2] if len(args) > 2 else None)
            uses_cuda = (
                bool(cuda_sources)
                or any(str(src).endswith((".cu", ".cuh")) for src in sources)
                or bool(kwargs.get("with_cuda"))
            )
            if uses_cuda and name == "load_inline":
                record(state, "custom CUDA extension (cpp_extension.load_inline with CUDA sources)")
            if uses_cuda:
                record(state, f"custom CUDA extension (cpp_extension.{name} of .cu sources)")
            return originals[name](*args, **kwargs)

        return load

    for name in originals:
        setattr(cpp_extension, name, guarded(name))
    import torch.cuda.jiterator as jiterator

    def no_jiterator(*args: Any, **kwargs: Any) -> Any:
        record(state, "torch.cuda.jiterator kernel")

    jiterator._create_jit_fn = no_jiterator
    jiterator._create_multi_output_jit_fn = no_jiterator


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]
