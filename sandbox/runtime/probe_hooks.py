"""The probe recorder's torch side: tensor records and the hooks on `backward()`, `torch.save`
and autocast. Imported only once the program has imported torch (see `probes.py`)."""

import functools
import io
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

if TYPE_CHECKING:
    from sandbox.runtime.probes import Recorder


def tensor_record(recorder: "Recorder", value: Any) -> dict[str, Any]:
    """The record of a tensor or NumPy array: a scalar value, a kept tensor or a summary."""
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(np.ascontiguousarray(value))
    with torch.no_grad():
        host = value.detach().to("cpu")
    dtype = str(host.dtype).removeprefix("torch.")
    record: dict[str, Any] = {"dtype": dtype, "shape": list(host.shape)}
    array = _to_numpy(host)
    if host.numel() == 1 and host.dim() == 0:
        record["value"] = array.item()
        return record
    if recorder.kept_bytes + array.nbytes > recorder.max_bytes:
        record["summary"] = _summary(array)
        return record
    key = f"t{len(recorder.tensors):06d}"
    recorder.tensors[key] = array.copy()
    recorder.kept_bytes += array.nbytes
    record["tensor"] = key
    return record


def _to_numpy(tensor: torch.Tensor) -> np.ndarray:
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    elif tensor.is_complex():
        tensor = torch.view_as_real(tensor)
    with torch._C.DisableTorchFunction():
        return tensor.contiguous().numpy()


def _summary(array: np.ndarray) -> dict[str, float]:
    values = array.astype(np.float64).reshape(-1)
    return {
        "mean": float(values.mean()),
        "std": float(values.std()),
        "min": float(values.min()),
        "max": float(values.max()),
        "l2": float(np.linalg.norm(values)),
    }


def npz_bytes(tensors: dict[str, Any]) -> bytes:
    """The kept tensors as one `.npz` archive."""
    buffer = io.BytesIO()
    np.savez(buffer, **tensors)
    return buffer.getvalue()


def _hook_backward(recorder: "Recorder") -> None:
    """Record the value of every scalar passed to `backward()` (minus GradScaler's scale)."""
    original = torch.autograd.backward

    @functools.wraps(original)
    def backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:
        for tensor in tensors if isinstance(tensors, list | tuple) else [tensors]:
            if isinstance(tensor, torch.Tensor) and tensor.numel() == 1:
                with torch.no_grad():
                    value = float(tensor.detach().float().reshape(()).item())
                scale = getattr(tensor, "_torchport_loss_scale", None)
                recorder.add("backward", "backward", value / scale if scale else value)
        return original(tensors, *args, **kwargs)

    torch.autograd.backward = backward
    scale_method = torch.amp.GradScaler.scale

    @functools.wraps(scale_method)
    def scale(self: torch.amp.GradScaler, outputs: Any) -> Any:
        scaled = scale_method(self, outputs)
        if isinstance(scaled, torch.Tensor) and scaled is not outputs and self._scale is not None:
            with torch.no_grad():
                scaled._torchport_loss_scale = float(self._scale.detach().reshape(-1)[0].item())  # type: ignore[attr-defined]
        return scaled

    torch.amp.GradScaler.scale = scale  # type: ignore[method-assign]


SCALER_STATE_KIND = "grad-scaler"
"""The probe kind of values saved from `GradScaler.state_dict()`: loss-scaling machinery, which a
migration to bf16 rightly drops (parity excludes them when the migrated run has none)."""
_scaler_states: dict[int, Any] = {}
"""GradScaler state dicts handed out since the last `torch.save`, by id (kept alive until then)."""


def _hook_scaler_state() -> None:
    original = torch.amp.GradScaler.state_dict

    @functools.wraps(original)
    def state_dict(self: torch.amp.GradScaler) -> dict[str, Any]:
        state = original(self)
        _scaler_states[id(state)] = state
        return state

    torch.amp.GradScaler.state_dict = state_dict  # type: ignore[method-assign]


def _flatten(
    value: Any, prefix: str, kind: str = "save", depth: int = 0
) -> Iterator[tuple[str, Any, str]]:
    """(dotted key, leaf, probe kind) of a saved object's tensors, arrays and numbers."""
    if depth > 12:
        return
    if isinstance(value, torch.Tensor | np.ndarray | bool | int | float):
        yield prefix, value, kind
    elif isinstance(value, torch.nn.Module):
        yield from _flatten(value.state_dict(), prefix, kind, depth + 1)
    elif isinstance(value, Mapping):
        if id(value) in _scaler_states:
            kind = SCALER_STATE_KIND
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}.{key}" if prefix else str(key), kind, depth + 1)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _flatten(
                item, f"{prefix}.{index}" if prefix else str(index), kind, depth + 1
            )


def _hook_save(recorder: "Recorder") -> None:
    """Record every tensor and number `torch.save` writes, under `save:<file>:<key>`."""
    original = torch.save

    @functools.wraps(original)
    def save(obj: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        label = Path(os.fspath(f)).name if isinstance(f, str | os.PathLike) else "<stream>"
        for key, leaf, kind in _flatten(obj, ""):
            recorder.add(f"save:{label}:{key}" if key else f"save:{label}", kind, leaf)
        _scaler_states.clear()
        return original(obj, f, *args, **kwargs)

    torch.save = save


def _hook_autocast(recorder: "Recorder") -> None:
    """Count the enabled autocast regions by device and dtype (evidence of the precision used)."""
    autocast = torch.amp.autocast_mode.autocast
    enter = autocast.__enter__

    @functools.wraps(enter)
    def enter_region(self: Any) -> Any:
        if getattr(self, "_enabled", False):
            key = f"{self.device}:{str(self.fast_dtype).removeprefix('torch.')}"
            recorder.autocast[key] = recorder.autocast.get(key, 0) + 1
        return enter(self)

    autocast.__enter__ = enter_region  # type: ignore[method-assign]


def install_torch_hooks(recorder: "Recorder") -> None:
    """Hook `backward()`, `torch.save` and autocast regions (torch is imported by now)."""
    _hook_backward(recorder)
    _hook_save(recorder)
    _hook_scaler_state()
    _hook_autocast(recorder)
