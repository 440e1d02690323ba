"""`torch.distributed` with NCCL → gloo on CPU tensors.

`destroy_process_group` runs a barrier first: without it gloo's teardown races and a rank can
abort after all its output was written (seen in 5 of 25 plain-CPU runs of a DDP script).
"""

import functools
from typing import Any

import torch


def _gloo(backend: Any) -> Any:
    """'nccl', 'cuda:nccl,cpu:gloo', None → 'gloo'; anything else unchanged."""
    if backend is None:
        return "gloo"
    text = str(backend).lower()
    return "gloo" if "nccl" in text or "cuda" in text else backend


def patch_distributed() -> None:
    """Patch `torch.distributed` (and `distributed_c10d`) for CUDA programs on the CPU."""
    import torch.distributed as dist

    if not dist.is_available():
        return
    c10d = dist.distributed_c10d
    originals = {
        name: getattr(c10d, name)
        for name in ("init_process_group", "new_group", "barrier", "destroy_process_group")
    }

    @functools.wraps(originals["init_process_group"])
    def init_process_group(backend: Any = None, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("device_id", None)
        if "backend" in kwargs:
            backend = kwargs.pop("backend")
        return originals["init_process_group"](_gloo(backend), *args, **kwargs)

    @functools.wraps(originals["new_group"])
    def new_group(*args: Any, **kwargs: Any) -> Any:
        if "backend" in kwargs:
            kwargs["backend"] = _gloo(kwargs["backend"])
            kwargs.pop("pg_options", None)
        kwargs.pop("device_id", None)
        return originals["new_group"](*args, **kwargs)

    @functools.wraps(originals["barrier"])
    def barrier(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("device_ids", None)
        return originals["barrier"](*args[:2], **kwargs)

    @functools.wraps(originals["destroy_process_group"])
    def destroy_process_group(group: Any = None) -> Any:
        if group is None and dist.is_initialized():
            originals["barrier"]()
        return originals["destroy_process_group"](group)

    replacements = {
        "init_process_group": init_process_group,
        "new_group": new_group,
        "barrier": barrier,
        "destroy_process_group": destroy_process_group,
        "is_nccl_available": lambda: True,
    }
    for name, function in replacements.items():
        setattr(c10d, name, function)
        setattr(dist, name, function)
    torch.cuda.nccl.version = lambda: (2, 21, 5)
