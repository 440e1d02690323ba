"""`collect_reference`: run the ORIGINAL program on the reference runtime, classify its probes.

Runs (on the CPU reference): the program as written; again with volatile figures salted (what
differs is volatile); again with every input nudged (what moves past its tolerance is
ill-conditioned); and, when the migrated run uses lower precision, in fp32 and at that
precision (for R). Cached on disk by the content of the original tree, the commands and the
spec. `--reference golden` reads probes recorded elsewhere; `--reference cuda` runs on a GPU.
"""

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import sandbox.runtime
from agent.errors import BadInputError
from agent.log import get_logger
from sandbox.types import RuntimeName, Sandbox
from tools.parity.classify import ill_conditioned_probes, volatile_probes
from tools.parity.model import Reference
from tools.parity.protect import protected_hashes, tree_hash
from tools.parity.runs import Commands, ProgramRun, RunLimits, normalize_commands, run_program
from tools.parity.spec import ParitySpec
from tools.parity.unavailable import ReferenceUnavailableError, unavailable_reason

log = get_logger(__name__)

PRECISION_ENV = "TORCHPORT_RT_PRECISION"
PERTURB_ENV = "TORCHPORT_RT_PERTURB"
SALT_ENV = "TORCHPORT_RT_SALT"
LOW_PRECISIONS = ("bf16", "fp16")

__all__ = ["ReferenceUnavailableError", "collect_reference"]


def collect_reference(
    original: Path,
    commands: Commands,
    *,
    sandbox: Sandbox,
    spec: ParitySpec,
    low_precision: str | None = None,
    cache_dir: Path | None = None,
    limits: RunLimits | None = None,
) -> Reference:
    """The reference of `original` for `commands` (see the module docstring)."""
    argvs = normalize_commands(commands)
    if low_precision is not None and low_precision not in LOW_PRECISIONS:
        raise BadInputError(f"unknown low precision {low_precision!r}; use bf16 or fp16")
    if spec.reference == "golden":
        return _golden(argvs, spec, low_precision)
    key = _cache_key(original, argvs, spec, low_precision)
    cached = cache_dir / key if cache_dir else None
    if cached is not None and (cached / "reference.json").is_file():
        log.info("reference: cached in %s", cached)
        return Reference.load(cached)
    reference = _compute(original, argvs, sandbox, spec, low_precision, limits)
    if cached is not None:
        reference.save(cached)
    return reference


def _compute(
    original: Path,
    argvs: list[list[str]],
    sandbox: Sandbox,
    spec: ParitySpec,
    low_precision: str | None,
    limits: RunLimits | None,
) -> Reference:
    on_cpu = spec.reference == "cpu"
    if not on_cpu:
        _require_gpu()
    runtime: RuntimeName = "reference" if on_cpu else "cpu"
    chip = spec.gpu_profile if on_cpu else None

    def run(env: dict[str, str] | None = None) -> ProgramRun:
        return run_program(
            sandbox, original, argvs, spec, runtime=runtime, chip=chip, env=env, limits=limits
        )

    log.info("reference: running the original on the %s reference", spec.reference)
    base = run()
    _check_available(base, original)
    reference = Reference(
        source=spec.reference,
        commands=argvs,
        base=base.probes,
        exit_codes=base.exit_codes,
        device_calls=base.device_calls,
        protected=protected_hashes(original, spec.protected),
        tree=tree_hash(original),
        profile=spec.gpu_profile or ("A100" if on_cpu else ""),
        notes=_fallback_notes(base),
    )
    reference.volatile = volatile_probes(base.probes, run({SALT_ENV: "1"}).probes)
    if not on_cpu:
        reference.low_precision = low_precision
        reference.notes.append("no reruns on a GPU reference: conditioning and R not checked")
        return reference
    _classify_and_rerun(reference, run, spec, low_precision)
    return reference


def _classify_and_rerun(
    reference: Reference,
    run: Callable[[dict[str, str]], ProgramRun],
    spec: ParitySpec,
    low_precision: str | None,
) -> None:
    """Conditioning and R are judged in fp32: the original's own low-precision noise is no
    signal. Adds the fp32 rerun (when the original autocasts), the nudged one, and the
    low-precision reruns (as written and nudged) when asked."""
    full_precision = {PRECISION_ENV: "fp32"} if reference.base.autocast else {}
    reference.fp32 = run(full_precision).probes if full_precision else None
    perturbed = run({PERTURB_ENV: f"{spec.perturbation:g}", **full_precision})
    reference.ill_conditioned = ill_conditioned_probes(
        reference.fp32 or reference.base, perturbed.probes, spec, reference.volatile
    )
    if low_precision is not None:
        reference.low_precision = low_precision
        reference.low = run({PRECISION_ENV: low_precision}).probes
        nudged = {PRECISION_ENV: low_precision, PERTURB_ENV: f"{spec.perturbation:g}"}
        reference.low_nudged = run(nudged).probes


def _check_available(base: ProgramRun, original: Path) -> None:
    for result in base.results:
        reason = unavailable_reason(result, original)
        if reason is not None:
            raise ReferenceUnavailableError(f"reference unavailable: {reason}")


def _fallback_notes(base: ProgramRun) -> list[str]:
    notes = []
    for metrics in base.metrics:
        for entry in (metrics.get("reference") or {}).get("unavailable") or []:
            notes.append(
                f"the original tried {entry['what']} at {entry['file']}:{entry['line']} and went "
                "on without it: a GPU run may compute something else"
            )
    return notes


def _require_gpu() -> None:
    import torch

    if not torch.cuda.is_available():
        raise BadInputError(
            "--reference cuda needs an NVIDIA GPU on this machine, and none is visible",
            hint="use --reference cpu (the CUDA-on-CPU reference) or golden probes",
        )


def _golden(argvs: list[list[str]], spec: ParitySpec, low_precision: str | None) -> Reference:
    if not spec.golden_dir:
        raise BadInputError("--reference golden needs the folder", hint="pass --golden DIR")
    folder = Path(spec.golden_dir)
    reference = Reference.load(folder)
    if reference.commands != argvs:
        raise BadInputError(
            f"the golden probes in {folder} were recorded for {reference.commands}, not {argvs}",
            hint="run the same commands, or record golden probes for these",
        )
    reference.golden_dir = str(folder)
    reference.notes.append(f"golden probes from {folder} (recorded on {reference.source})")
    if low_precision and reference.low is None:
        reference.notes.append("the golden probes have no precision reruns: R is not computed")
    return reference


def _cache_key(
    original: Path, argvs: list[list[str]], spec: ParitySpec, low_precision: str | None
) -> str:
    parts = {
        "tree": tree_hash(original),
        "commands": argvs,
        "spec": spec.model_dump(mode="json"),
        "low_precision": low_precision,
        "runtime": _runtime_fingerprint(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def runtime_sources() -> list[Path]:
    """The runtime files a reference run executes: everything under `sandbox/runtime` but the
    emulated device (the reference, the shared RNG, the probe recorder, activation)."""
    root = Path(sandbox.runtime.__file__).parent
    return sorted(
        path for path in root.rglob("*.py") if "device" not in path.relative_to(root).parts
    )


def _runtime_fingerprint() -> str:
    """Hash of the runtime sources and torch's version: a new runtime invalidates the cache."""
    import torch

    root = Path(sandbox.runtime.__file__).parent
    digest = hashlib.sha256(torch.__version__.encode())
    for path in runtime_sources():
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()
