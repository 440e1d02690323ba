"""Detectors for torch.distributed (TP100-TP106)."""

import re
from collections.abc import Iterator

import libcst as cst

from tools.scanner.detectors.common import claim_callee
from tools.scanner.facts import ModuleFacts
from tools.scanner.patterns import argument, string_value
from tools.scanner.site import Site, site
from tools.scanner.strings import Use, string_use

DDP_CLASSES = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
    }
)
DATA_PARALLEL = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
        "torch.nn.parallel.data_parallel",
    }
)
SYNC_BATCHNORM = frozenset(
    {"torch.nn.SyncBatchNorm", "torch.nn.SyncBatchNorm.convert_sync_batchnorm"}
)
SHARDING = frozenset(
    {
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard",
        "torch.distributed.tensor.parallel.parallelize_module",
    }
)
SPAWNERS = frozenset({"torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"})
START_METHODS = frozenset(
    {"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method"}
)
NCCL_VARIABLE = re.compile(r"^NCCL_[A-Z0-9_]+$")
ENVIRON = "os.environ"


def on_call(call: cst.Call, facts: ModuleFacts) -> Iterator[Site]:
    """DDP device ids, DataParallel, SyncBatchNorm, FSDP/TP, spawn."""
    qualified = facts.qname(call) or ""
    if qualified in DDP_CLASSES:
        device_args = [
            arg
            for arg in (argument(call, 1, "device_ids"), argument(call, 2, "output_device"))
            if arg is not None and _names_a_device(arg.value)
        ]
        if device_args:
            yield site("TP101", call, data=tuple(device_args))
    elif qualified in DATA_PARALLEL:
        claim_callee(call, facts)
        yield site("TP102", call)
    elif qualified in SYNC_BATCHNORM:
        claim_callee(call, facts)
        yield site("TP103", call)
    elif qualified in SHARDING:
        yield site("TP104", call)
    elif qualified in SPAWNERS or (qualified in START_METHODS and _starts_with_fork(call)):
        yield site("TP105", call)


def _names_a_device(value: cst.BaseExpression) -> bool:
    """`[local_rank]`, `local_rank`; not `None` nor a conditional already choosing None."""
    if isinstance(value, cst.Name) and value.value == "None":
        return False
    return not isinstance(value, cst.IfExp)


def _starts_with_fork(call: cst.Call) -> bool:
    first = argument(call, 0, "method")
    return first is not None and string_value(first.value) == "fork"


def on_string(node: cst.SimpleString, facts: ModuleFacts) -> Iterator[Site]:
    """ "nccl" as a process-group backend (TP100) and NCCL_* variables (TP106)."""
    if facts.is_claimed(node):
        return
    value = string_value(node) or ""
    if "nccl" in value:
        use = string_use(node, facts)
        if use is not None and use.use in (Use.BACKEND_ARG, Use.BACKEND_VALUE):
            yield site("TP100", node, fixable=value == "nccl", data=use)
    elif NCCL_VARIABLE.match(value):
        yield from _nccl_variable(node, facts)


def _nccl_variable(node: cst.SimpleString, facts: ModuleFacts) -> Iterator[Site]:
    """`os.environ["NCCL_X"] = v` or `os.environ.setdefault("NCCL_X", v)` as a statement."""
    line = _environment_assignment(node, facts)
    yield site("TP106", node, fixable=line is not None, data=line)


def _environment_assignment(
    node: cst.SimpleString, facts: ModuleFacts
) -> cst.SimpleStatementLine | None:
    index = facts.parent(node)
    element = facts.parent(index) if isinstance(index, cst.Index) else None
    subscript = facts.parent(element) if isinstance(element, cst.SubscriptElement) else None
    if isinstance(subscript, cst.Subscript) and facts.qname(subscript.value) == ENVIRON:
        target = facts.parent(subscript)
        assign = facts.parent(target) if isinstance(target, cst.AssignTarget) else None
        if isinstance(assign, cst.Assign):
            return facts.single_statement_line(assign)
        return None
    arg = facts.parent(node)
    call = facts.parent(arg) if isinstance(arg, cst.Arg) else None
    if isinstance(call, cst.Call) and facts.qname(call) in (f"{ENVIRON}.setdefault", "os.putenv"):
        return facts.standalone_line(call)
    return None
