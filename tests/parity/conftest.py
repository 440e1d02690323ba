"""Shared, expensive fixtures of the parity integration tests: the sandbox and the references
of the tiny language model (collected once per session, cached in a temporary folder)."""

import importlib.util
from pathlib import Path

import pytest

from sandbox.local_sandbox import LocalSandbox
from tools.parity.model import Reference
from tools.parity.reference import collect_reference
from tools.parity.spec import ParitySpec, load_spec

PROGRAMS = Path(__file__).parent / "programs"
ORIGINAL = PROGRAMS / "lm_original"
MIGRATED = PROGRAMS / "lm_migrated"
FP32_RUN = "python train.py --steps 12"
AMP_RUN = "python train.py --steps 12 --amp"
TPU_AVAILABLE = importlib.util.find_spec("sandbox.runtime.device") is not None
needs_tpu = pytest.mark.skipif(not TPU_AVAILABLE, reason="the emulated tpu runtime is not here")


@pytest.fixture(scope="session")
def sandbox() -> LocalSandbox:
    return LocalSandbox()


@pytest.fixture(scope="session")
def lm_spec() -> ParitySpec:
    return load_spec(ORIGINAL)


@pytest.fixture(scope="session")
def reference_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("reference-cache")


@pytest.fixture(scope="session")
def fp32_reference(sandbox: LocalSandbox, lm_spec: ParitySpec, reference_cache: Path) -> Reference:
    return collect_reference(
        ORIGINAL, [FP32_RUN], sandbox=sandbox, spec=lm_spec, cache_dir=reference_cache
    )


@pytest.fixture(scope="session")
def amp_reference(sandbox: LocalSandbox, lm_spec: ParitySpec, reference_cache: Path) -> Reference:
    return collect_reference(
        ORIGINAL, [AMP_RUN], sandbox=sandbox, spec=lm_spec, low_precision="bf16",
        cache_dir=reference_cache,
    )  # fmt: skip
