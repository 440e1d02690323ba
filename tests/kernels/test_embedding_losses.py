import numpy as np
import pytest
import torch
from torch.nn import functional as nnf

from sandbox.kernels import embedding, losses
from tests.kernels.helpers import as_numpy, check, make, torch_grads

DTYPES = ["float32", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("padding_idx", "by_freq"), [(-1, False), (2, False), (-1, True)])
def test_embedding_forward_backward_with_repeats(
    dtype: str, padding_idx: int, by_freq: bool
) -> None:
    weight = make(10, 6, dtype=dtype)
    indices = torch.tensor([[1, 2, 2], [9, 1, 2]])
    out = embedding.embedding(as_numpy(weight), indices.numpy())
    check(out, nnf.embedding(indices, weight), dtype)
    grad = make(2, 3, 6, dtype=dtype, seed=1).detach()
    ours = embedding.embedding_backward(as_numpy(grad), indices.numpy(), 10, padding_idx, by_freq)
    pad = None if padding_idx < 0 else padding_idx
    (theirs,) = torch_grads(
        lambda w: nnf.embedding(indices, w, padding_idx=pad, scale_grad_by_freq=by_freq),
        [weight],
        grad,
    )
    check(ours, theirs, dtype, scale=2.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_with_weights_and_ignore_index(dtype: str, reduction: str) -> None:
    logits = make(6, 5, dtype=dtype, scale=2.0)
    target = torch.tensor([0, 4, -100, 2, 2, 1])
    class_weight = torch.rand(5, generator=torch.Generator().manual_seed(3)).to(logits.dtype)
    args = (target.numpy(), as_numpy(class_weight), reduction)
    ours = losses.cross_entropy(as_numpy(logits), *args)

    def theirs_fn(x: torch.Tensor) -> torch.Tensor:
        return nnf.cross_entropy(x.float(), target, class_weight.float(), reduction=reduction)

    check(ours, theirs_fn(logits), "float32" if dtype == "float32" else dtype)
    grad = torch.ones(()) if reduction != "none" else make(6, dtype="float32", seed=4).detach()
    (t_grad,) = torch_grads(theirs_fn, [logits], grad)
    check(losses.cross_entropy_backward(grad.numpy(), as_numpy(logits), *args), t_grad, dtype)
    log_probs = nnf.log_softmax(logits.detach().float(), 1)
    loss, total = losses.nll_loss(log_probs.numpy(), *args)
    t_loss, t_total = torch.ops.aten.nll_loss_forward(
        log_probs, target, class_weight.float(), {"none": 0, "mean": 1, "sum": 2}[reduction], -100
    )
    check(loss, t_loss, "float32")
    check(total, t_total, "float32")


def test_nll_loss_on_spatial_input_matches_torch() -> None:
    log_probs = nnf.log_softmax(make(2, 3, 4, 5, dtype="float32").detach(), 1)
    target = torch.randint(0, 3, (2, 4, 5), generator=torch.Generator().manual_seed(1))
    loss, _ = losses.nll_loss(log_probs.numpy(), target.numpy())
    check(loss, nnf.nll_loss(log_probs, target), "float32")
    leaf = log_probs.clone().requires_grad_(True)
    (theirs,) = torch_grads(lambda x: nnf.nll_loss(x, target), [leaf], torch.tensor(2.0))
    check(
        losses.nll_loss_backward(np.float32(2.0), log_probs.numpy(), target.numpy()),
        theirs,
        "float32",
    )


def test_out_of_range_target_raises_like_torch() -> None:
    with pytest.raises(IndexError, match="out of bounds"):
        losses.nll_loss(np.zeros((2, 3), np.float32), np.array([0, 3]))
