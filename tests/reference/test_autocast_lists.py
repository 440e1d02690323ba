"""The CUDA autocast lists the reference registers match what the installed torch registers."""

import torch

from sandbox.runtime.reference import autocast_lists


def test_lists_cover_exactly_the_ops_torch_autocasts_on_cuda() -> None:
    registered = set(torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCUDA"))
    cuda_only = {f"aten::{name}" for name in autocast_lists.CUDA_ONLY_OPS}
    assert autocast_lists.all_listed() == registered - cuda_only


def test_every_listed_op_exists() -> None:
    for name in autocast_lists.all_listed():
        packet, _, overload = name.removeprefix("aten::").partition(".")
        assert hasattr(getattr(torch.ops.aten, packet), overload or "default"), name
