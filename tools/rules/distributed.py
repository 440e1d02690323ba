"""torch.distributed on NCCL, DDP device ids, DataParallel, SyncBatchNorm, sharding, spawn."""

from tools.rules.model import ACCELERATORS, ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP100",
        name="nccl-backend",
        category=Category.DISTRIBUTED,
        message="The process group uses NCCL, which exists only on NVIDIA GPUs",
        explanation=(
            "`init_process_group('nccl')` raises `ProcessGroupNCCL is only supported with "
            "GPUs, no GPUs found!`. The codemod asks PyTorch for the device's default backend: "
            "`dist.get_default_backend_for_device(DEVICE)` (nccl on CUDA, gloo on CPU, the "
            "target's own on TorchTPU/TorchNeuron). Held in a variable or config entry named "
            "like a backend, the string is rewritten the same way."
        ),
        before='dist.init_process_group(backend="nccl")',
        after="dist.init_process_group(backend=dist.get_default_backend_for_device(DEVICE))",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP101",
        name="ddp-device-ids",
        category=Category.DISTRIBUTED,
        message="DDP is given CUDA device ids",
        explanation=(
            "`device_ids`/`output_device` are for single-device CUDA modules; other devices "
            "must pass None. The codemod keeps them on CUDA only: "
            "`device_ids=[rank] if DEVICE.type == 'cuda' else None`."
        ),
        before="model = DDP(model, device_ids=[local_rank], output_device=local_rank)",
        after=(
            'model = DDP(model, device_ids=[local_rank] if DEVICE.type == "cuda" else None, '
            'output_device=local_rank if DEVICE.type == "cuda" else None)'
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP102",
        name="data-parallel",
        category=Category.DISTRIBUTED,
        message="`nn.DataParallel` replicates over CUDA devices only",
        explanation=(
            "Off CUDA the wrapper just calls the module: no data parallelism. Use "
            "DistributedDataParallel under torchrun (TorchTPU/TorchNeuron), or the XLA launch "
            "path; the `module.` prefix in saved state_dict keys changes with the wrapper."
        ),
        before="model = nn.DataParallel(model)",
        after="model = DDP(model)  # under torchrun",
        targets=ACCELERATORS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP103",
        name="sync-batchnorm",
        category=Category.DISTRIBUTED,
        message="SyncBatchNorm accepts only GPU/XPU/PrivateUse1 inputs",
        explanation=(
            "Raises `SyncBatchNorm expected input tensor to be on GPU or XPU or <name>` at the "
            "first forward on the CPU and torch_xla; support on TorchTPU/TorchNeuron is "
            "unverified. Convert only when the device supports it, or all-reduce statistics."
        ),
        before="model = nn.SyncBatchNorm.convert_sync_batchnorm(model)",
        after=(
            'if DEVICE.type == "cuda":\n    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)'
        ),
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
    Rule(
        code="TP104",
        name="sharded-parallelism",
        category=Category.DISTRIBUTED,
        message="FSDP / tensor parallelism is set up for CUDA",
        explanation=(
            "torch_xla needs its own FSDP (or SPMD FSDPv2); TorchTPU supports DDP, FSDPv2 and "
            "DTensor; TorchNeuron FSDP1/2 and SimpleFSDP. Device meshes, `device_id=` and "
            "mixed-precision policies need review per target."
        ),
        before="model = FSDP(model, device_id=torch.cuda.current_device())",
        after="mesh = init_device_mesh(DEVICE.type, (world_size,))\nfully_shard(model, mesh=mesh)",
        targets=ACCELERATORS,
        effort=Effort.HIGH,
        codemods=frozenset(),
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP105",
        name="process-spawn",
        category=Category.DISTRIBUTED,
        message="Worker processes are spawned by hand",
        explanation=(
            "`mp.spawn(fn, nprocs=n)` and the 'fork' start method assume one CUDA device per "
            "process. torch_xla accepts only `nprocs` None or 1 (`torch_xla.launch`); TorchTPU "
            "and TorchNeuron expect torchrun."
        ),
        before="mp.spawn(train, args=(world_size,), nprocs=world_size)",
        after="# launch with: torchrun --nproc_per_node=<devices> train.py",
        targets=ACCELERATORS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP106",
        name="nccl-environment",
        category=Category.DISTRIBUTED,
        message="NCCL environment variables have no effect on the target",
        explanation=(
            "`NCCL_*` variables tune NVIDIA's collective library. The codemod deletes the "
            "assignments for tpu/neuron."
        ),
        before='os.environ["NCCL_DEBUG"] = "INFO"',
        after="",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.NOTE,
    ),
)
