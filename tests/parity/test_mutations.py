"""Mutation test of the parity verdict: bugs planted in a correct migration each fail, with the
reason that names them. The score (killed with the right reason / planted) must be 100%."""

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sandbox.local_sandbox import LocalSandbox
from tests.parity.conftest import AMP_RUN, MIGRATED, ORIGINAL, needs_tpu
from tools.parity.model import Reference
from tools.parity.runs import ProgramRun, run_candidate
from tools.parity.spec import ParitySpec
from tools.parity.verdict import check_parity

pytestmark = pytest.mark.slow

DEVICE_LINE = """DEVICE = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)"""
FORGE = """
    import os, shutil
    if os.environ.get("TORCHPORT_RT_OUT"):
        for name in ("probes.json", "probes.npz"):
            shutil.copy(f"{name}.good", os.path.join(os.environ["TORCHPORT_RT_OUT"], name))
        os._exit(0)
"""
SAVE_LINE = '    torch.save(model.state_dict(), "model.pt")\n'


@dataclass(frozen=True)
class Mutant:
    """A planted bug: text replacements in the migrated tree, and the failure it must cause."""

    name: str
    edits: dict[str, tuple[str, str]] = field(default_factory=dict)
    expected: str = "probe_mismatch"
    target: str = "agnostic"


MUTANTS = [
    Mutant("wrong softmax dim", {"train.py": ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")}),
    Mutant("missing attention scale", {"train.py": (".transpose(-2, -1) * self.scale", ".transpose(-2, -1)")}),
    Mutant("dropped bias", {"train.py": ("self.proj = nn.Linear(dim, dim)", "self.proj = nn.Linear(dim, dim, bias=False)")}),
    Mutant("changed learning rate", {"train.py": ("lr=3e-3", "lr=1e-3")}),
    Mutant("fp16 where bf16", {"train.py": ("dtype=torch.bfloat16", "dtype=torch.float16")}, "precision"),
    Mutant("extra detach", {"train.py": ("return h + self.mlp(self.ln2(h))", "return h + self.mlp(self.ln2(h)).detach()")}),
    Mutant("loop off by one", {"train.py": ("batches(args.steps, 8", "batches(args.steps - 1, 8")}),
    Mutant("model left on the CPU", {"train.py": (DEVICE_LINE, 'DEVICE = torch.device("cpu")')}, "not_on_device", "tpu"),
    Mutant("weights untied", {"train.py": ("        self.head.weight = self.embed.weight\n", "")}),
    Mutant("probe file rewritten", {"train.py": (SAVE_LINE, SAVE_LINE + FORGE)}, "probe_integrity"),
    Mutant("outputs zeroed", {"train.py": ("return self.head(self.block(h))", "return self.head(self.block(h)) * 0")}, "degenerate"),
    Mutant("test edited", {"tests/test_model.py": ("(2, 16, 48)", "(2, 16, 47 + 1)")}, "protected_changed"),
    Mutant("NaN loss", {"train.py": ("loss.backward()", "(loss * float('nan')).backward()")}, "nan_inf"),
    Mutant("exit code", {"train.py": (SAVE_LINE, SAVE_LINE + "    raise SystemExit(3)\n")}, "exit_code"),
    Mutant("not migrated at all", {}, "same_program"),
]  # fmt: skip


@pytest.fixture(scope="module")
def good_run(sandbox: LocalSandbox, lm_spec: ParitySpec) -> ProgramRun:
    return run_candidate(MIGRATED, [AMP_RUN], sandbox=sandbox, spec=lm_spec, target="agnostic")


def _plant(mutant: Mutant, root: Path, good: ProgramRun) -> Path:
    source = ORIGINAL if mutant.name == "not migrated at all" else MIGRATED
    tree = root / "tree"
    shutil.copytree(source, tree)
    for relative, (old, new) in mutant.edits.items():
        path = tree / relative
        text = path.read_text()
        assert text.count(old) == 1, f"{mutant.name}: {old!r} not found once in {relative}"
        path.write_text(text.replace(old, new))
    if mutant.expected == "probe_integrity":  # the forger ships a good run's probe files
        artifacts = good.results[0].artifacts_dir
        assert artifacts is not None
        for name in ("probes.json", "probes.npz"):
            shutil.copy(artifacts / name, tree / f"{name}.good")
    return tree


def _killed(
    mutant: Mutant,
    root: Path,
    reference: Reference,
    good: ProgramRun,
    sandbox: LocalSandbox,
    spec: ParitySpec,
) -> tuple[bool, set[str]]:
    tree = _plant(mutant, root, good)
    candidate = run_candidate(tree, [AMP_RUN], sandbox=sandbox, spec=spec, target=mutant.target)
    report = check_parity(reference, candidate, spec, migrated=tree, target=mutant.target)
    codes = {failure.code for failure in report.failures}
    return report.verdict == "fail" and mutant.expected in codes, codes


def test_the_unmutated_migration_passes(
    amp_reference: Reference, good_run: ProgramRun, lm_spec: ParitySpec
) -> None:
    report = check_parity(amp_reference, good_run, lm_spec, migrated=MIGRATED, target="agnostic")
    assert report.verdict == "pass", report.to_dict()


@needs_tpu
def test_mutation_score_is_100_percent(
    amp_reference: Reference,
    good_run: ProgramRun,
    sandbox: LocalSandbox,
    lm_spec: ParitySpec,
    tmp_path: Path,
) -> None:
    outcomes = {
        mutant.name: _killed(
            mutant, tmp_path / str(index), amp_reference, good_run, sandbox, lm_spec
        )
        for index, mutant in enumerate(MUTANTS)
    }
    survivors = {name: codes for name, (killed, codes) in outcomes.items() if not killed}
    score = 1 - len(survivors) / len(MUTANTS)
    print(f"mutation score {score:.0%} over {len(MUTANTS)} planted bugs")
    for mutant in MUTANTS:
        print(
            f"  {mutant.name}: expected {mutant.expected}, got {sorted(outcomes[mutant.name][1])}"
        )
    assert len(MUTANTS) >= 12
    assert survivors == {}, f"survived or failed for another reason: {survivors}"
