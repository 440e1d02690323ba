"""The LLM path, with the scripted OpenAI-compatible server over real HTTP: a Triton kernel that
blocks parity is replaced by the model; a wrong edit is caught by parity and repaired in another
iteration; 429s are retried; an exhausted budget stops with its own exit status and a report."""

import json
from pathlib import Path

import pytest

from agent.cli import main
from agent.exit_status import ExitStatus
from agent.testing.openai_server import Fault, Reply, ScriptedOpenAIServer
from tests.e2e.repos import make_git_repo

KERNELS = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x * alpha + y, mask=mask)


def scale_add(x, y, alpha):
    out = torch.empty_like(x)
    n = x.numel()
    scale_add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, alpha, BLOCK=256)
    return out
"""
TRITON_MAIN = """import torch

from kernels import scale_add

torch.manual_seed(0)
x = torch.randn(1000).cuda()
y = torch.randn(1000).cuda()
for step in range(3):
    y = scale_add(x, y, 0.5)
    print(f"step {step} checksum {y.sum().item():.6f}")
torch.save({"y": y.cpu()}, "out.pt")
"""
KERNEL_BLOCK = KERNELS[KERNELS.index("@triton.jit") : KERNELS.index("def scale_add(")]
LAUNCH_BODY = KERNELS[KERNELS.index("    out = torch.empty_like(x)") :]

STREAMS_MAIN = """import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Linear(16, 4).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(64, 16).cuda()
y = torch.randn(64, 4).cuda()
side = torch.cuda.Stream()
for step in range(5):
    with torch.cuda.stream(side):
        loss = F.mse_loss(model(x), y)
    torch.cuda.current_stream().wait_stream(side)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.6f}")
"""
STREAM_BLOCK = """    with torch.cuda.stream(side):
        loss = F.mse_loss(model(x), y)
    torch.cuda.current_stream().wait_stream(side)
"""


def edit(path: str, search: str, replace: str) -> tuple[str, dict[str, str]]:
    return ("apply_edit", {"path": path, "search": search, "replace": replace})


def fix(
    repo: Path, runs: Path, env: dict[str, str], server: ScriptedOpenAIServer, *extra: str
) -> int:
    return main(
        ["fix", str(repo), "--target", "tpu", "--run", "python train.py", "--run-dir", str(runs),
         "--model", "scripted", "--base-url", server.base_url, *extra],
        env={**env, "OPENAI_API_KEY": "sk-test"},
    )  # fmt: skip


def report_of(runs: Path) -> dict:
    return json.loads(next(runs.glob("*/report.json")).read_text())


@pytest.mark.slow
def test_triton_kernel_is_replaced_through_the_llm_path(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    pytest.importorskip(
        "triton", reason="the reference runs the original kernel with Triton's interpreter"
    )
    repo = make_git_repo(tmp_path / "repo", {"kernels.py": KERNELS, "train.py": TRITON_MAIN})
    script = [
        Fault(429, retry_after=0.01),
        Reply(
            "The kernel computes x * alpha + y elementwise; replace it with PyTorch.",
            [
                edit("kernels.py", "import triton\nimport triton.language as tl\n", ""),
                edit("kernels.py", KERNEL_BLOCK, ""),
                edit("kernels.py", LAUNCH_BODY, "    return x * alpha + y\n"),
            ],
        ),
        Reply(None, [("run", {})]),
        Reply(None, [("finish", {"summary": "replaced the Triton kernel with x * alpha + y"})]),
    ]
    with ScriptedOpenAIServer(script) as server:
        code = fix(repo, tmp_path / "runs", cli_env, server)
        requests = server.requests
    report = report_of(tmp_path / "runs")
    assert code == ExitStatus.SUCCESS, report["stop_reason"]
    assert report["verdict"] == "parity"
    llm_changes = [c for c in report["changes"] if c["source"] == "llm"]
    assert len(llm_changes) == 1
    assert llm_changes[0]["files"] == ["kernels.py"]
    assert {"TP140", "TP141", "TP142"} <= set(llm_changes[0]["rules"])
    assert (
        "triton"
        not in (next((tmp_path / "runs").glob("*")) / "workspace" / "kernels.py").read_text()
    )
    run_observation = next(
        m["content"]
        for m in requests[-1]["messages"]
        if m["role"] == "tool" and "Parity" in m["content"]
    )
    assert "The run succeeded. Parity: pass" in run_observation
    assert len(requests) == 4  # the 429 was retried
    assert report["statistics"]["llm_calls"] == 3
    assert report["statistics"]["tokens"] > 0


def wrong_then_right(*, repair: bool) -> list:
    session_one = [
        Reply(
            "Remove the CUDA stream; it only overlapped work.",
            [
                edit("train.py", "side = torch.cuda.Stream()\n", ""),
                edit("train.py", STREAM_BLOCK, "    loss = F.mse_loss(model(x), y)\n"),
                edit("train.py", "lr=0.05", "lr=0.5"),  # the planted mistake
            ],
        ),
        Reply(None, [("finish", {"summary": "removed the stream"})]),
    ]
    if not repair:
        return session_one
    session_two = [
        Reply("The learning rate was changed by mistake.", [edit("train.py", "lr=0.5", "lr=0.05")]),
        Reply(None, [("finish", {"summary": "restored the learning rate"})]),
    ]
    return [Fault(500), *session_one, Fault(429, retry_after=0.01), *session_two]


@pytest.mark.slow
def test_a_wrong_edit_is_caught_by_parity_and_repaired(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    repo = make_git_repo(tmp_path / "repo", {"train.py": STREAMS_MAIN})
    with ScriptedOpenAIServer(wrong_then_right(repair=True)) as server:
        code = fix(repo, tmp_path / "runs", cli_env, server)
        requests = server.requests
    report = report_of(tmp_path / "runs")
    assert code == ExitStatus.SUCCESS, report["stop_reason"]
    assert report["statistics"]["iterations"] == 2
    assert [d["kind"] for d in report["diagnoses"]] == ["parity-failure"]
    sources = [change["source"] for change in report["changes"]]
    assert sources.count("llm") == 2
    repair_prompt = requests[-2]["messages"][1]["content"]
    assert "outputs differ" in repair_prompt
    assert "lr=0.5" in repair_prompt  # the diff so far shows the planted change
    assert len(requests) == 6


@pytest.mark.slow
def test_budget_exhaustion_stops_with_its_status_and_a_report(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    repo = make_git_repo(tmp_path / "repo", {"train.py": STREAMS_MAIN})
    with ScriptedOpenAIServer(wrong_then_right(repair=False)) as server:
        code = fix(repo, tmp_path / "runs", cli_env, server, "--max-iterations", "1")
    report = report_of(tmp_path / "runs")
    assert code == ExitStatus.BUDGET_EXHAUSTED
    assert report["verdict"] == "budget"
    assert "iteration budget" in report["stop_reason"]
    folder = next((tmp_path / "runs").glob("*"))
    assert "**Verdict: budget**" in (folder / "MIGRATION_REPORT.md").read_text()
