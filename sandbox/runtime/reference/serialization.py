"""Checkpoints: CUDA location tags on save, CUDA storages (tagged CPU ones) on load.

Saved logical-CUDA storages carry the `cuda:N` location a GPU would write, so checkpoints made
under the reference load on a real GPU, and checkpoints made on a GPU (or `map_location="cuda"`)
load here as CUDA tensors.
"""

from typing import Any

import torch

from sandbox.runtime.reference.state import CPU, ReferenceState

_PRIORITY = 1  # before the CPU (10) and CUDA (20) entries of torch's registry


def patch_serialization(state: ReferenceState) -> None:
    """Register the location tagger/deserializer and make `UntypedStorage.cuda()` copy."""
    tags = state.tags

    def tagger(storage: Any) -> str | None:
        if not isinstance(storage, torch.UntypedStorage):
            return None
        index = tags.device_of_storage(storage)
        return None if index is None else f"cuda:{index}"

    def deserializer(storage: Any, location: str) -> Any:
        if not location.startswith("cuda"):
            return None
        index = state.parse_device(location)
        if index is None or index == CPU:
            return None
        if isinstance(storage, torch.UntypedStorage):
            tags.tag_storage(storage, index)
        return storage

    torch.serialization.register_package(_PRIORITY, tagger, deserializer)

    def storage_cuda(
        self: torch.UntypedStorage, device: Any = None, non_blocking: bool = False
    ) -> Any:
        index = state.current_device if device is None else state.parse_device(device)
        if index is None or index == CPU:
            raise RuntimeError(f"Invalid device, must be cuda device, got {device}")
        if tags.device_of_storage(self) == index:
            return self
        copy = self.clone()
        tags.tag_storage(copy, index)
        return copy

    def storage_device(self: torch.UntypedStorage) -> torch.device:
        index = tags.device_of_storage(self)
        return torch.device("cpu") if index is None else torch.device("cuda", index)

    torch.UntypedStorage.cuda = storage_cuda  # type: ignore[assignment]
    torch.UntypedStorage.device = property(storage_device)  # type: ignore[assignment]
    torch.UntypedStorage.is_cuda = property(  # type: ignore[assignment,method-assign]
        lambda self: tags.device_of_storage(self) is not None
    )
