"""`nn.init` on CUDA tensors: run the initializer with the mode active inside it.

`nn.init.uniform_`/`normal_`/`trunc_normal_`/`kaiming_uniform_` first ask
`has_torch_function_variadic`, so the mode receives the whole initializer and, by default, would
run it with itself switched off: the `tensor.uniform_` inside would draw from the CPU generator.
For CUDA tensors the handler re-enters the initializer with the mode on and that guard answering
False, so the draw inside goes to the CUDA generator, as on a GPU (`nn.Linear(..., device="cuda")`).
"""

from collections.abc import Callable
from typing import Any

import torch

from sandbox.runtime.reference.emulation import Emulation, Handler, iter_tensors


def _reenter(
    emu: Emulation, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    if emu.mode is None or not any(
        emu.device_of(tensor) is not None for tensor in iter_tensors(args, kwargs)
    ):
        return emu.default(func, args, kwargs)
    overrides = torch.overrides
    guard = overrides.has_torch_function_variadic
    overrides.has_torch_function_variadic = lambda *values: False
    try:
        with emu.mode:
            result = func(*args, **kwargs)
    finally:
        overrides.has_torch_function_variadic = guard
    return result


def init_handlers() -> dict[Any, Handler]:
    """Handlers for the guarded initializers."""
    init = torch.nn.init
    return {
        init.uniform_: _reenter,
        init.normal_: _reenter,
        init.trunc_normal_: _reenter,
        init.kaiming_uniform_: _reenter,
    }
