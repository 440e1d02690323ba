"""Native kernels against PyTorch CPU: each op runs on CPU tensors and on device copies (fp32 and
bf16, with transposed and broadcast operands), forward and backward; results must agree and the
device run must not have needed the CPU fallback. Runs in a child interpreter with the device
active (see tests/runtime/harness.py)."""

import os
from collections.abc import Callable

import pytest
import torch
from torch.nn import functional as nnf

DEV = os.environ.get("TORCHPORT_TARGET", "tpu")
MOD = torch.get_device_module(DEV)
TOLERANCE = {torch.float32: (2e-5, 2e-5), torch.bfloat16: (2e-2, 2e-2)}
Op = Callable[..., torch.Tensor]


def _inputs(
    dtype: torch.dtype, *shapes: tuple[int, ...], layout: str = "plain"
) -> list[torch.Tensor]:
    """Random leaf tensors; "transposed" makes each a transposed (non-contiguous) view and
    "broadcast" expands a size-1 leading axis."""
    gen = torch.Generator().manual_seed(len(shapes) * 7 + sum(map(len, shapes)))
    made = []
    for shape in shapes:
        if layout == "transposed" and len(shape) >= 2:
            base = torch.randn(*shape[:-2], shape[-1], shape[-2], generator=gen).to(dtype)
            made.append(base.transpose(-1, -2))
        elif layout == "broadcast" and len(shape) >= 2:
            made.append(torch.randn(1, *shape[1:], generator=gen).to(dtype).expand(*shape))
        else:
            made.append(torch.randn(*shape, generator=gen).to(dtype))
    return made


def compare(op: Op, inputs: list[torch.Tensor], *, backward: bool = True) -> None:
    """Run `op` on CPU and on the device; compare outputs (and input grads) and require that
    the device run used no fallback."""
    dtype = inputs[0].dtype if inputs else torch.float32
    rtol, atol = TOLERANCE.get(dtype, (1e-6, 1e-6))
    floats = [t.is_floating_point() for t in inputs]
    cpu_in = [
        t.detach().clone().requires_grad_(backward and f)
        for t, f in zip(inputs, floats, strict=True)
    ]
    dev_in = [
        t.detach().to(DEV).requires_grad_(backward and f)
        for t, f in zip(inputs, floats, strict=True)
    ]
    before = _fallbacks()
    cpu_out, dev_out = op(*cpu_in), op(*dev_in)
    torch.testing.assert_close(dev_out.cpu(), cpu_out, rtol=rtol, atol=atol, equal_nan=True)
    if backward and cpu_out.requires_grad:
        grad = torch.randn(cpu_out.shape, generator=torch.Generator().manual_seed(3)).to(
            cpu_out.dtype
        )
        cpu_out.backward(grad)
        dev_out.backward(grad.to(DEV))
        for c, d in zip(cpu_in, dev_in, strict=True):
            if c.grad is not None:
                torch.testing.assert_close(d.grad.cpu(), c.grad, rtol=rtol, atol=atol * 4)
    after = _fallbacks()
    assert after == before, (
        f"fell back: {sorted(op for op in after if after[op] != before.get(op))}"
    )


def _fallbacks() -> dict[str, int]:
    return {
        op: calls["fallback"] for op, calls in MOD.metrics()["ops"].items() if calls["fallback"]
    }


DTYPES = [torch.float32, torch.bfloat16]
LAYOUTS = ["plain", "transposed", "broadcast"]

BINARY: dict[str, Op] = {
    "add_alpha": lambda a, b: torch.add(a, b, alpha=0.5),
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "maximum": torch.maximum,
    "pow": lambda a, b: torch.pow(a.abs() + 0.5, b),
    "lerp": lambda a, b: torch.lerp(a, b, 0.3),
    "addcmul": lambda a, b: torch.addcmul(a, b, a, value=0.5),
    "addcdiv": lambda a, b: torch.addcdiv(a, b, a.abs() + 1, value=0.5),
    "where": lambda a, b: torch.where(a > 0, a, b),
    "clamp": lambda a, b: torch.clamp(a, -0.5, 0.5) + b,
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_and_ternary_elementwise(name: str, layout: str, dtype: torch.dtype) -> None:
    compare(BINARY[name], _inputs(dtype, (6, 5), (6, 5), layout=layout))


UNARY: dict[str, Op] = {
    "exp": torch.exp,
    "log": lambda a: torch.log(a.abs() + 0.1),
    "sqrt": lambda a: torch.sqrt(a.abs() + 0.1),
    "rsqrt": lambda a: torch.rsqrt(a.abs() + 0.1),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "neg_abs": lambda a: -a.abs(),
    "relu": torch.relu,
    "silu": nnf.silu,
    "gelu": nnf.gelu,
    "gelu_tanh": lambda a: nnf.gelu(a, approximate="tanh"),
    "erf": torch.erf,
    "scalar_ops": lambda a: (a * 3 - 1) / 2 + a**2,
    "compare": lambda a: (a > 0.1).float() + (a == a).float(),
    "masked_fill": lambda a: a.masked_fill(a < 0, -1.0),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["plain", "transposed"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_elementwise(name: str, layout: str, dtype: torch.dtype) -> None:
    compare(UNARY[name], _inputs(dtype, (7, 9), layout=layout))


REDUCTIONS: dict[str, Op] = {
    "sum_dims": lambda a: a.sum((0, 2)),
    "sum_all": torch.sum,
    "mean_keepdim": lambda a: a.mean(1, keepdim=True),
    "amax": lambda a: a.amax(-1),
    "max_dim": lambda a: a.max(1).values,
    "var": lambda a: a.var(2),
    "std": lambda a: a.std(0, correction=0),
    "norm": lambda a: torch.linalg.vector_norm(a, 2, (1, 2)),
    "logsumexp": lambda a: torch.logsumexp(a, 1),
    "cumsum": lambda a: a.cumsum(1),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["plain", "transposed"])
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reductions(name: str, layout: str, dtype: torch.dtype) -> None:
    compare(REDUCTIONS[name], _inputs(dtype, (4, 5, 6), layout=layout))


def test_integer_reductions_and_arg_reductions_without_grad() -> None:
    compare(lambda a: a.argmax(1), _inputs(torch.float32, (5, 7)), backward=False)
    ints = [torch.randint(-5, 5, (4, 6), generator=torch.Generator().manual_seed(0))]
    compare(lambda a: a.sum(1), ints, backward=False)
    compare(lambda a: (a > 0).any(1), ints, backward=False)


NN: dict[str, tuple[Op, tuple[tuple[int, ...], ...]]] = {
    "mm": (torch.mm, ((5, 7), (7, 3))),
    "bmm": (torch.bmm, ((2, 5, 7), (2, 7, 3))),
    "matmul_4d": (torch.matmul, ((2, 3, 5, 7), (2, 3, 7, 4))),
    "linear": (lambda x, w, b: nnf.linear(x, w, b), ((2, 4, 6), (5, 6), (5,))),
    "baddbmm": (
        lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2.0),
        ((2, 5, 3), (2, 5, 4), (2, 4, 3)),
    ),
    "softmax": (lambda a: a.softmax(-1), ((4, 9),)),
    "log_softmax": (lambda a: a.log_softmax(0), ((4, 9),)),
    "layer_norm": (lambda x, w, b: nnf.layer_norm(x, [6], w, b), ((3, 4, 6), (6,), (6,))),
    "rms_norm": (lambda x, w: nnf.rms_norm(x, [6], w), ((3, 4, 6), (6,))),
    "sdpa_causal": (
        lambda q, k, v: nnf.scaled_dot_product_attention(q, k, v, is_causal=True),
        ((2, 3, 5, 4),) * 3,
    ),
    "conv2d": (
        lambda x, w, b: nnf.conv2d(x, w, b, stride=2, padding=1),
        ((2, 3, 7, 6), (4, 3, 3, 3), (4,)),
    ),
    "conv2d_groups": (
        lambda x, w: nnf.conv2d(x, w, groups=2, dilation=2),
        ((1, 4, 8, 8), (6, 2, 3, 3)),
    ),
    "conv1d": (lambda x, w: nnf.conv1d(x, w, padding=2), ((2, 3, 9), (5, 3, 4))),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(NN))
def test_nn_ops_forward_and_backward(name: str, dtype: torch.dtype) -> None:
    op, shapes = NN[name]
    compare(op, _inputs(dtype, *shapes))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_with_masks_scale_and_grouped_query_heads(dtype: torch.dtype) -> None:
    q, k, v = _inputs(dtype, (2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 8))
    mask = torch.randn(5, 7) > -0.5
    compare(
        lambda a, b, c: nnf.scaled_dot_product_attention(
            a, b, c, attn_mask=mask.to(a.device), enable_gqa=True
        ),
        [q, k, v],
    )
    additive = _inputs(dtype, (1, 1, 5, 7))[0]
    compare(
        lambda a, b, c, m: nnf.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.2),
        [q, k.repeat(1, 2, 1, 1), v.repeat(1, 2, 1, 1), additive],
    )


def test_embedding_and_cross_entropy_with_ignore_index() -> None:
    weight = _inputs(torch.float32, (10, 4))
    idx = torch.tensor([[1, 2, 2], [9, 0, 2]])
    compare(lambda w: nnf.embedding(idx.to(w.device), w), weight)
    logits = _inputs(torch.float32, (6, 5))
    target = torch.tensor([0, 4, -100, 2, 2, 1])
    compare(lambda x: nnf.cross_entropy(x, target.to(x.device)), logits)
    compare(lambda x: nnf.cross_entropy(x, target.to(x.device), reduction="sum"), logits)


DATA: dict[str, Op] = {
    "cat": lambda a, b: torch.cat([a, b.t()], 0),
    "stack": lambda a, b: torch.stack([a, a * 2], 1),
    "tril": lambda a, b: a.tril(-1) + b.t().triu(1),
    "index_select": lambda a, b: a.index_select(0, torch.tensor([2, 0, 2], device=a.device)),
    "gather": lambda a, b: a.gather(
        1, torch.tensor([[0, 1], [2, 2], [1, 0], [0, 0]], device=a.device)
    ),
    "advanced_index": lambda a, b: a[torch.tensor([0, 3], device=a.device), 1:],
    "index_put": lambda a, b: a.index_put(
        (torch.tensor([0, 0, 3], device=a.device),), b[:3, :3].t()[:3], accumulate=True
    ),
    "arange_add": lambda a, b: a + torch.arange(3, device=a.device),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(DATA))
def test_data_movement(name: str, dtype: torch.dtype) -> None:
    compare(DATA[name], _inputs(dtype, (4, 3), (3, 4)))


@pytest.mark.parametrize("kind", ["foreach", "fused", "for-loop"])
@pytest.mark.parametrize("optimizer", ["adamw", "adam_amsgrad", "sgd_nesterov"])
def test_optimizer_steps_match_cpu(kind: str, optimizer: str) -> None:
    params = [torch.randn(5, 3), torch.randn(4)]
    flags = {
        "foreach": {"foreach": True},
        "fused": {"fused": True},
        "for-loop": {"foreach": False},
    }[kind]
    results = []
    for device in ("cpu", DEV):
        live = [p.clone().to(device).requires_grad_() for p in params]
        if optimizer == "adamw":
            opt: torch.optim.Optimizer = torch.optim.AdamW(live, lr=0.01, weight_decay=0.1, **flags)
        elif optimizer == "adam_amsgrad":
            opt = torch.optim.Adam(live, lr=0.01, amsgrad=True, maximize=True, **flags)
        else:
            opt = torch.optim.SGD(
                live, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, **flags
            )
        for step in range(3):
            for i, p in enumerate(live):
                p.grad = torch.randn(
                    p.shape, generator=torch.Generator().manual_seed(step * 10 + i)
                ).to(device)
            opt.step()
        results.append([p.detach().cpu() for p in live])
    for cpu, device in zip(*results, strict=True):
        torch.testing.assert_close(device, cpu, rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_runs_natively() -> None:
    grads = _inputs(torch.float32, (4, 5), (7,))
    for device in ("cpu", DEV):
        live = [torch.zeros_like(g, device=device, requires_grad=True) for g in grads]
        for p, g in zip(live, grads, strict=True):
            p.grad = g.clone().to(device)  # .to("cpu") would alias g, which clipping scales
        norm = torch.nn.utils.clip_grad_norm_(live, 0.5)
        if device == "cpu":
            expected = norm, [p.grad.clone() for p in live]
    torch.testing.assert_close(norm.cpu(), expected[0])
    for p, g in zip(live, expected[1], strict=True):
        torch.testing.assert_close(p.grad.cpu(), g)
