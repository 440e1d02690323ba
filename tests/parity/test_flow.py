"""A correct hand migration of a CUDA training script passes against the original's reference:
in fp32 and under bf16 autocast, on plain CPU (agnostic) and on the emulated tpu device."""

import pytest

from sandbox.local_sandbox import LocalSandbox
from tests.parity.conftest import AMP_RUN, FP32_RUN, MIGRATED, ORIGINAL, needs_tpu
from tools.parity.model import Reference
from tools.parity.reference import collect_reference
from tools.parity.runs import run_candidate
from tools.parity.spec import ParitySpec
from tools.parity.verdict import check_parity

pytestmark = pytest.mark.slow


def test_reference_classifies_the_probes(fp32_reference: Reference) -> None:
    assert fp32_reference.exit_codes == [0]
    assert len(fp32_reference.base.probes["backward"].records) == 12
    assert list(fp32_reference.volatile) == [r"print:peak_mb (\S+)"]  # a memory figure
    assert fp32_reference.device_calls > 1000
    assert "tests/test_model.py" in fp32_reference.protected


def test_reference_is_cached_by_content(
    fp32_reference: Reference, sandbox: LocalSandbox, lm_spec: ParitySpec, reference_cache: object
) -> None:
    again = collect_reference(
        ORIGINAL, [FP32_RUN], sandbox=_NoRuns(), spec=lm_spec, cache_dir=reference_cache
    )  # type: ignore[arg-type]
    assert again.tree == fp32_reference.tree
    assert again.base.probes.keys() == fp32_reference.base.probes.keys()


class _NoRuns:
    """A sandbox that must not be used: the reference has to come from the cache."""

    name = "no-runs"

    def run(self, spec: object) -> object:
        raise AssertionError("the cached reference was not used")


def test_fp32_migration_passes_on_cpu(
    fp32_reference: Reference, sandbox: LocalSandbox, lm_spec: ParitySpec
) -> None:
    candidate = run_candidate(
        MIGRATED, [FP32_RUN], sandbox=sandbox, spec=lm_spec, target="agnostic"
    )
    report = check_parity(fp32_reference, candidate, lm_spec, migrated=MIGRATED, target="agnostic")
    assert report.verdict == "pass", report.to_dict()
    assert report.rows[0].max_abs == 0.0  # same substrate: bit for bit


def test_bf16_migration_passes_on_cpu(
    amp_reference: Reference, sandbox: LocalSandbox, lm_spec: ParitySpec
) -> None:
    assert amp_reference.base.autocast == {"cuda:float16": 12}
    candidate = run_candidate(MIGRATED, [AMP_RUN], sandbox=sandbox, spec=lm_spec, target="agnostic")
    report = check_parity(amp_reference, candidate, lm_spec, migrated=MIGRATED, target="agnostic")
    assert report.verdict == "pass", report.to_dict()
    ratios = [row.ratio for row in report.rows if row.ratio is not None]
    assert len(ratios) == len(report.rows)
    assert max(ratios) <= 1.2


@needs_tpu
def test_fp32_migration_passes_on_the_emulated_tpu(
    fp32_reference: Reference, sandbox: LocalSandbox, lm_spec: ParitySpec
) -> None:
    candidate = run_candidate(MIGRATED, [FP32_RUN], sandbox=sandbox, spec=lm_spec, target="tpu")
    report = check_parity(fp32_reference, candidate, lm_spec, migrated=MIGRATED, target="tpu")
    assert report.verdict == "pass", report.to_dict()


@needs_tpu
def test_bf16_migration_on_the_emulated_tpu_has_no_failure(
    amp_reference: Reference, sandbox: LocalSandbox, lm_spec: ParitySpec
) -> None:
    candidate = run_candidate(MIGRATED, [AMP_RUN], sandbox=sandbox, spec=lm_spec, target="tpu")
    report = check_parity(amp_reference, candidate, lm_spec, migrated=MIGRATED, target="tpu")
    assert report.failures == []
    assert report.verdict in ("pass", "marginal")
    assert max(row.ratio or 0.0 for row in report.rows) <= 2.0
