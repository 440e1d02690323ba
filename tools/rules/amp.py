"""Mixed precision: CUDA autocast, GradScaler, custom_fwd/bwd, apex.amp."""

from tools.rules.model import ACCELERATORS, ALL_TARGETS, Category, Effort, Rule, Severity

RULES = (
    Rule(
        code="TP030",
        name="cuda-autocast",
        category=Category.AMP,
        message="Autocast is bound to CUDA and silently disabled elsewhere",
        explanation=(
            "`torch.cuda.amp.autocast()` and `torch.autocast('cuda')` warn `User provided "
            "device_type of 'cuda', but CUDA is not available. Disabling` and run in float32. "
            "The codemod writes `torch.amp.autocast(device_type=DEVICE.type, ...)`. For tpu and "
            "neuron it also sets `dtype=torch.bfloat16` (TPU and Trainium are bf16-native; fp16 "
            "is not recommended); for agnostic it keeps the dtype, so CUDA still gets float16."
        ),
        before="with torch.cuda.amp.autocast():\n    loss = model(x)",
        after=(
            "with torch.amp.autocast(device_type=DEVICE.type, dtype=torch.bfloat16):  # tpu\n"
            "    loss = model(x)"
        ),
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP031",
        name="fp16-autocast",
        category=Category.AMP,
        message="Autocast to float16 on a bf16-native target",
        explanation=(
            "TPU and Trainium compute in bfloat16; float16 autocast is slower or unsupported "
            "and needs loss scaling. The codemod sets `dtype=torch.bfloat16`."
        ),
        before="with torch.autocast(device_type=device.type, dtype=torch.float16):",
        after="with torch.autocast(device_type=device.type, dtype=torch.bfloat16):",
        targets=ACCELERATORS,
        effort=Effort.NONE,
        codemods=ACCELERATORS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP032",
        name="cuda-grad-scaler",
        category=Category.AMP,
        message="A GradScaler scales fp16 gradients on CUDA",
        explanation=(
            "`torch.cuda.amp.GradScaler()` (and `torch.amp.GradScaler()`, whose device defaults "
            "to 'cuda') is disabled without CUDA. With bf16 autocast there is nothing to scale, "
            "so for tpu and neuron the codemod removes the scaler together with its calls: "
            "`scaler.scale(loss)` becomes `loss`, `scaler.step(opt)` becomes `opt.step()`, "
            "`scaler.unscale_(opt)` and `scaler.update()` go. It declines when the scaler is used "
            "in any other way (passed to a function, stored in a list). For agnostic it writes "
            "`torch.amp.GradScaler(DEVICE.type, ...)`, which also works on the CPU."
        ),
        before=(
            "scaler = torch.cuda.amp.GradScaler()\nscaler.scale(loss).backward()\n"
            "scaler.step(optimizer)\nscaler.update()"
        ),
        after="loss.backward()\noptimizer.step()  # tpu/neuron",
        targets=ALL_TARGETS,
        effort=Effort.LOW,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
        fix_together=frozenset({"TP033"}),
    ),
    Rule(
        code="TP033",
        name="grad-scaler-call",
        category=Category.AMP,
        message="A GradScaler call that has no purpose with bf16",
        explanation=(
            "`scaler.scale/step/update/unscale_` around a GradScaler that the bf16 targets do "
            "not need; kept, the scaler's `unscale_` computes in float64 and `step` reads "
            "`found_inf` on the host every step. Rewritten together with TP032."
        ),
        before="scaler.unscale_(optimizer)\nscaler.step(optimizer)",
        after="optimizer.step()",
        targets=ACCELERATORS,
        effort=Effort.LOW,
        codemods=ACCELERATORS,
        severity=Severity.WARNING,
        fix_together=frozenset({"TP032"}),
    ),
    Rule(
        code="TP034",
        name="cuda-custom-fwd-bwd",
        category=Category.AMP,
        message="`torch.cuda.amp.custom_fwd/custom_bwd` apply to CUDA only",
        explanation=(
            "Deprecated (FutureWarning) and only cast on CUDA. The codemod writes "
            "`torch.amp.custom_fwd(device_type=DEVICE.type, ...)`; on tpu/neuron a "
            "`cast_inputs=torch.float16` becomes `torch.bfloat16`."
        ),
        before="@torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)",
        after="@torch.amp.custom_fwd(device_type=DEVICE.type, cast_inputs=torch.bfloat16)",
        targets=ALL_TARGETS,
        effort=Effort.NONE,
        codemods=ALL_TARGETS,
        severity=Severity.WARNING,
    ),
    Rule(
        code="TP035",
        name="apex-amp",
        category=Category.AMP,
        message="NVIDIA apex.amp is CUDA-only",
        explanation=(
            "`apex` is not installable off CUDA (`No module named 'apex'`). Replace "
            "`amp.initialize` with `torch.amp.autocast` around the forward pass and "
            "`amp.scale_loss(loss, opt)` with a plain `loss.backward()` on bf16 targets (a "
            "`torch.amp.GradScaler` only where float16 is kept)."
        ),
        before="model, opt = amp.initialize(model, opt, opt_level='O1')",
        after="# wrap the forward in torch.amp.autocast(device_type=DEVICE.type)",
        targets=ALL_TARGETS,
        effort=Effort.MEDIUM,
        codemods=frozenset(),
        severity=Severity.ERROR,
    ),
)
