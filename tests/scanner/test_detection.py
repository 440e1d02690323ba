"""Every rule finds its positive fixtures and stays quiet on its near misses; detection follows
names semantically (aliases, from-imports, variables, f-strings) and respects guards."""

import pytest

from agent.settings import Target
from tests.scanner.cases import CASES, CUDA_SOURCE
from tools.rules import all_rules, get_rule, rule_codes
from tools.scanner import Finding, scan_source
from tools.scanner.source import TRIGGERS, scan_text


def findings(source: str, target: Target, path: str = "case.py") -> list[Finding]:
    if path.endswith(".cu"):
        return list(scan_text(source, path, target).findings)
    return scan_source(source, path, target=target)


def targets_of(code: str) -> list[Target]:
    return sorted(get_rule(code).targets)


def test_every_rule_has_positive_and_negative_fixtures() -> None:
    assert set(CASES) == rule_codes()
    for code, case in CASES.items():
        assert case.positive, code
        assert case.negative, code


POSITIVES = [(code, index) for code, case in CASES.items() for index in range(len(case.positive))]
NEGATIVES = [(code, index) for code, case in CASES.items() for index in range(len(case.negative))]


@pytest.mark.parametrize(("code", "index"), POSITIVES)
def test_positive_fixture_is_reported(code: str, index: int) -> None:
    source = CASES[code].positive[index]
    path = "kernel.cu" if code == "TP144" else "case.py"
    for target in targets_of(code):
        rules = {finding.rule for finding in findings(source, target, path)}
        assert code in rules, f"{code} not found for {target.value} in:\n{source}"


@pytest.mark.parametrize(("code", "index"), NEGATIVES)
def test_negative_fixture_is_not_reported(code: str, index: int) -> None:
    source = CASES[code].negative[index]
    for target in targets_of(code):
        rules = {finding.rule for finding in findings(source, target)}
        assert code not in rules, f"{code} wrongly found for {target.value} in:\n{source}"


def test_rules_that_do_not_matter_on_a_target_are_not_reported_there() -> None:
    source = "import torch\ntorch.backends.cudnn.benchmark = True\nx = y.double()\n"
    assert {finding.rule for finding in scan_source(source, target=Target.TPU)} == {
        "TP050",
        "TP170",
    }
    assert scan_source(source, target=Target.AGNOSTIC) == []


def test_aliases_and_from_imports_resolve_to_torch_cuda() -> None:
    source = (
        "import torch.cuda as tc\n"
        "from torch.cuda.amp import autocast as ac\n"
        "from torch import cuda\n"
        "tc.synchronize()\n"
        "with ac():\n    pass\n"
        "cuda.empty_cache()\n"
    )
    found = [(finding.rule, finding.line) for finding in scan_source(source)]
    assert found == [("TP060", 4), ("TP030", 5), ("TP081", 7)]


def test_a_local_name_called_torch_is_not_pytorch() -> None:
    source = "def f(torch):\n    torch.cuda.synchronize()\n    return torch.device('cuda')\n"
    assert scan_source(source) == []


def test_device_strings_in_variables_config_and_fstrings() -> None:
    source = (
        "import torch\n"
        'dev = "cuda"\n'  # flows into .to(dev)
        "x = torch.ones(1).to(dev)\n"
        'settings = {"train_device": "cuda:1"}\n'
        'label = "cuda"\n'  # only printed: not a device
        "print(label)\n"
        'd = torch.device(f"cuda:{rank}")\n'
        'e = torch.device("cuda", index)\n'
    )
    found = [(finding.rule, finding.line) for finding in scan_source(source)]
    assert found == [("TP003", 2), ("TP003", 4), ("TP003", 7), ("TP003", 8)]


def test_comments_and_docstrings_are_never_findings() -> None:
    source = (
        '"""Uses torch.cuda.synchronize() and x.cuda() on "cuda" with nccl."""\n'
        "import torch\n"
        "# torch.cuda.synchronize()\n"
        "def f(x):\n"
        '    """Call .cuda() first; backend="nccl"."""\n'
        "    return x  # x.cuda()\n"
    )
    assert scan_source(source) == []


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nif torch.cuda.is_available():\n    torch.cuda.synchronize()\n",
        "import torch\ndef f(x):\n    if not torch.cuda.is_available():\n        return x\n"
        "    torch.cuda.synchronize()\n    return x\n",
        "import torch\nif x.device.type != 'cuda':\n    pass\nelse:\n    torch.cuda.empty_cache()\n",
        "import torch\ntorch.cuda.is_available() and torch.cuda.synchronize()\n",
        "import torch\ny = x.cuda() if x.is_cuda else x\n",
    ],
)
def test_cuda_calls_behind_a_cuda_check_are_not_reported(source: str) -> None:
    rules = {finding.rule for finding in scan_source(source)}
    assert rules <= {"TP004"}
    assert not {"TP002", "TP060", "TP081"} & rules


def test_a_check_that_chooses_a_code_path_is_reported_once() -> None:
    source = "import torch\nif torch.cuda.is_available():\n    model = model.cuda()\n"
    assert [(f.rule, f.line, f.fixable) for f in scan_source(source)] == [("TP004", 2, False)]


def test_triton_kernels_launches_and_imports() -> None:
    source = (
        "import triton\nimport triton.language as tl\n\n"
        "@triton.autotune(configs=[], key=['n'])\n@triton.jit\n"
        "def add_kernel(x_ptr, n, BLOCK: tl.constexpr):\n    pass\n\n"
        "def add(x):\n    add_kernel[(1,)](x, x.numel(), BLOCK=128)\n"
    )
    found = [(finding.rule, finding.line) for finding in scan_source(source)]
    assert found == [("TP142", 1), ("TP142", 2), ("TP140", 6), ("TP141", 10)]
    assert all(finding.effort.value == "high" for finding in scan_source(source)[2:])


def test_cuda_sources_report_each_kernel() -> None:
    scanned = scan_text(CUDA_SOURCE, "ops/kernels.cu", Target.TPU)
    assert [(f.rule, f.line, f.message) for f in scanned.findings] == [
        ("TP144", 2, "CUDA kernel `add_kernel` needs a target implementation"),
        ("TP144", 6, "CUDA kernel `scale_kernel` needs a target implementation"),
    ]


def test_a_cuda_source_without_kernels_is_reported_once() -> None:
    scanned = scan_text("#pragma once\n#include <cuda.h>\n", "common.cuh", Target.AGNOSTIC)
    assert [(f.rule, f.line) for f in scanned.findings] == [("TP144", 1)]


def test_positions_are_one_based_spans_with_the_code_line() -> None:
    [finding] = scan_source("import torch\n\ny = (x\n     .cuda())\n")
    assert (finding.line, finding.col, finding.end_line, finding.end_col) == (3, 6, 4, 13)
    assert finding.code == "y = (x"


def test_findings_carry_effort_and_fixability_for_the_target() -> None:
    source = "import torch\nwith torch.autocast('cuda'):\n    pass\ng = torch.cuda.CUDAGraph()\n"
    autocast, graph = scan_source(source, target=Target.NEURON)
    assert (autocast.rule, autocast.fixable, autocast.effort.value) == ("TP030", True, "none")
    assert (graph.rule, graph.fixable, graph.effort.value) == ("TP064", False, "high")
    assert graph.targets == ("agnostic", "neuron", "tpu")


def test_the_prefilter_never_hides_a_finding() -> None:
    for code, case in CASES.items():
        for source in case.positive:
            if code != "TP144":
                assert TRIGGERS.search(source), f"{code}: prefilter would skip\n{source}"


def test_every_rule_with_targets_is_reachable_for_one_of_them() -> None:
    reported = set()
    for code, case in CASES.items():
        target = targets_of(code)[0]
        for source in case.positive:
            path = "k.cu" if code == "TP144" else "case.py"
            reported |= {finding.rule for finding in findings(source, target, path)}
    assert reported == {rule.code for rule in all_rules()}


def test_a_device_agnostic_grad_scaler_matters_only_on_bf16_targets() -> None:
    source = "import torch\nscaler = torch.amp.GradScaler(device.type)\n"
    assert scan_source(source, target=Target.AGNOSTIC) == []
    [finding] = scan_source(source, target=Target.TPU)
    assert (finding.rule, finding.fixable) == ("TP032", True)


def test_a_grad_scaler_passed_around_is_not_removable() -> None:
    source = (
        "import torch\nscaler = torch.cuda.amp.GradScaler()\n"
        "scaler.scale(loss).backward()\ntrain_step(model, scaler)\n"
    )
    found = [(f.rule, f.fixable) for f in scan_source(source, target=Target.TPU)]
    assert found == [("TP032", False), ("TP033", False)]
    assert [(f.rule, f.fixable) for f in scan_source(source)] == [("TP032", True)]


@pytest.mark.parametrize(
    "source",
    [
        'def is_cuda_attr(node):\n    return node.attr.value == "cuda"\n',
        'def f(text):\n    return "gloo" if "cuda" in text else text\n',
        'KEYS = {"CUDA_VISIBLE_DEVICES"}\nif name == "CUDA_VISIBLE_DEVICES":\n    pass\n',
        'import torch\nname = "cuda"\nlabel = name.upper()\n',
    ],
)
def test_cuda_words_in_unrelated_strings_are_not_findings(source: str) -> None:
    assert scan_source(source) == []


@pytest.mark.parametrize(
    "source",
    [
        'import os\nvalue = os.environ.get("CUDA_VISIBLE_DEVICES", "")\n',
        'import os, subprocess\nsubprocess.run(cmd, env={"CUDA_VISIBLE_DEVICES": "0"})\n',
        'def f(args):\n    if args.device == "cuda":\n        return 1\n    return 0\n',
        'def f(x):\n    return "cuda" in str(x.device)\n',
    ],
)
def test_cuda_words_used_for_devices_are_findings(source: str) -> None:
    assert scan_source(source) != []
