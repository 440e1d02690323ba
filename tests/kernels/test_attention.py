import numpy as np
import pytest
import torch
from torch.nn import functional as nnf

from sandbox.kernels import attention
from tests.kernels.helpers import as_numpy, check, make, precision, torch_grads

DTYPES = ["float32", "bfloat16"]


def _run(q, k, v, dtype, *, block=4, **kwargs):  # type: ignore[no-untyped-def]
    mask = kwargs.pop("mask", None)
    np_mask = None if mask is None else mask.numpy() if mask.dtype == torch.bool else as_numpy(mask)
    out, lse = attention.flash_attention(
        as_numpy(q),
        as_numpy(k),
        as_numpy(v),
        mask=np_mask,
        block_q=block,
        block_k=block,
        precision=precision(dtype),
        **kwargs,
    )
    grad = make(*out.shape, dtype=dtype, seed=9).detach()
    grads = attention.flash_attention_backward(
        as_numpy(grad),
        as_numpy(q),
        as_numpy(k),
        as_numpy(v),
        out,
        lse,
        mask=np_mask,
        block_q=block,
        block_k=block,
        precision=precision(dtype),
        **kwargs,
    )
    return out, grads, grad


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_matches_sdpa_across_several_tiles(dtype: str, causal: bool) -> None:
    q, k, v = (make(2, 3, 11, 8, dtype=dtype, seed=s) for s in range(3))
    out, grads, grad = _run(q, k, v, dtype, causal=causal)
    fn = lambda a, b, c: nnf.scaled_dot_product_attention(a, b, c, is_causal=causal)  # noqa: E731
    check(out, fn(q, k, v), dtype)
    for ours, theirs in zip(grads, torch_grads(fn, [q, k, v], grad), strict=True):
        check(ours, theirs, dtype, scale=2.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_flash_attention_with_bool_and_additive_masks_and_scale(dtype: str) -> None:
    q = make(2, 2, 6, 4, dtype=dtype)
    k, v = make(2, 2, 9, 4, dtype=dtype, seed=1), make(2, 2, 9, 5, dtype=dtype, seed=2)
    bool_mask = torch.rand(6, 9, generator=torch.Generator().manual_seed(3)) > 0.3
    bool_mask[:, 0] = True
    additive = make(1, 2, 6, 9, dtype=dtype, seed=4).detach()
    for mask in (bool_mask, additive):
        out, grads, grad = _run(q, k, v, dtype, mask=mask, scale=0.3)

        def fn(
            a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, m: torch.Tensor = mask
        ) -> torch.Tensor:
            return nnf.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.3)

        check(out, fn(q, k, v), dtype)
        for ours, theirs in zip(grads, torch_grads(fn, [q, k, v], grad), strict=True):
            check(ours, theirs, dtype, scale=2.0)


def test_grouped_query_attention_by_broadcasting_key_heads() -> None:
    q = make(2, 2, 3, 5, 4, dtype="float32")  # (batch, kv heads, group, L, E)
    k, v = (
        make(2, 2, 1, 7, 4, dtype="float32", seed=1),
        make(2, 2, 1, 7, 4, dtype="float32", seed=2),
    )
    out, (gq, gk, gv), grad = _run(q, k, v, "float32", causal=True)
    assert gk.shape == (2, 2, 1, 7, 4)

    def fn(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        flat = nnf.scaled_dot_product_attention(
            a.reshape(2, 6, 5, 4),
            b.reshape(2, 2, 7, 4),
            c.reshape(2, 2, 7, 4),
            is_causal=True,
            enable_gqa=True,
        )
        return flat.reshape(2, 2, 3, 5, 4)

    check(out, fn(q, k, v), "float32")
    for ours, theirs in zip((gq, gk, gv), torch_grads(fn, [q, k, v], grad), strict=True):
        check(ours, theirs, "float32")


def test_fully_masked_rows_give_zero_output_and_zero_grads() -> None:
    q, k, v = (make(1, 3, 4, dtype="float32", seed=s) for s in range(3))
    mask = np.array([[True, False, True], [False, False, False], [True, True, True]])
    out, lse = attention.flash_attention(as_numpy(q), as_numpy(k), as_numpy(v), mask=mask)
    assert np.all(out[0, 1] == 0)
    assert np.isinf(lse[0, 1])
    gq, _, _ = attention.flash_attention_backward(
        np.ones_like(out), as_numpy(q), as_numpy(k), as_numpy(v), out, lse, mask=mask
    )
    assert np.all(gq[0, 1] == 0)
    assert np.isfinite(gq).all()


def test_bf16_attention_rounds_like_flash_kernels() -> None:
    """In bf16 the probabilities enter P @ V in bf16 (FlashAttention-2, PyTorch's CPU flash
    kernel, bf16 matrix units), so the error against fp32 is theirs, not a float32 kernel's."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 4, 33, 16, generator=g) for _ in range(3))
    exact = nnf.scaled_dot_product_attention(q, k, v)
    flash_bf16 = nnf.scaled_dot_product_attention(q.bfloat16(), k.bfloat16(), v.bfloat16()).float()
    ours, _ = attention.flash_attention(
        q.bfloat16().float().numpy(), k.bfloat16().float().numpy(), v.bfloat16().float().numpy(),
        precision="bfloat16",
    )  # fmt: skip
    ours_error = float((torch.from_numpy(ours) - exact).norm() / exact.norm())
    flash_error = float((flash_bf16 - exact).norm() / exact.norm())
    assert ours_error == pytest.approx(flash_error, rel=0.02)
    assert float((torch.from_numpy(ours) - flash_bf16).abs().max()) <= 2**-7
