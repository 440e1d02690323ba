"""Detectors for CUDA seeds, generators and RNG state (TP020-TP022)."""

from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import claim_callee
from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import argument, cuda_string
from tools.scanner.site import Site, site

SEEDS = frozenset(
    {
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
        "torch.cuda.random.manual_seed",
        "torch.cuda.random.manual_seed_all",
    }
)
STATE = frozenset(
    f"torch.cuda.{name}"
    for name in (
        "get_rng_state",
        "set_rng_state",
        "get_rng_state_all",
        "set_rng_state_all",
        "initial_seed",
        "seed",
        "seed_all",
        "random.get_rng_state",
        "random.set_rng_state",
    )
)
GENERATORS = frozenset({"torch.Generator", "torch._C.Generator"})


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """`torch.cuda.manual_seed*`, CUDA generators and CUDA RNG state."""
    if facts.is_claimed(call):
        return
    qualified = facts.qname(call) or ""
    if qualified in SEEDS:
        claim_callee(call, facts)
        yield site("TP020", call, fixable=len(call.args) == 1 and not call.args[0].keyword)
    elif qualified in STATE:
        claim_callee(call, facts)
        yield site("TP022", call)
    elif qualified in GENERATORS:
        device = argument(call, 0, "device")
        if device is not None and cuda_string(device.value):
            facts.claim(device.value)
            yield site("TP021", call, data=device)
