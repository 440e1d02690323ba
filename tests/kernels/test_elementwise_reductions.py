import numpy as np
import pytest
import torch

from sandbox.kernels import elementwise as ew
from sandbox.kernels import reductions as red
from sandbox.kernels.precision import round_to
from tests.kernels.helpers import as_numpy, check, make

DTYPES = ["float32", "bfloat16"]
UNARY_DOMAIN_POSITIVE = {"log", "log2", "log10", "sqrt", "rsqrt", "log1p", "acos", "asin"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "name", sorted(n for n in ew.UNARY if not n.startswith(("bitwise", "logical", "is")))
)
def test_unary_ops_match_torch(dtype: str, name: str) -> None:
    x = make(3, 17, dtype=dtype, scale=2.0).detach()
    if name in UNARY_DOMAIN_POSITIVE:
        x = (x.abs() * 0.4 + 0.05).to(x.dtype)
    theirs = (getattr(torch, name, None) or getattr(torch.nn.functional, name))(x.float())
    ours = ew.UNARY[name](as_numpy(x))
    if dtype == "bfloat16":
        ours, theirs = round_to(ours, "bfloat16"), theirs.to(torch.bfloat16)
    check(ours, theirs, dtype, scale=2.0)


@pytest.mark.parametrize(
    "name",
    [
        "add",
        "sub",
        "mul",
        "div",
        "div_trunc",
        "div_floor",
        "maximum",
        "minimum",
        "remainder",
        "fmod",
        "pow",
        "atan2",
        "eq",
        "lt",
        "ge",
    ],
)
def test_binary_ops_broadcast_like_torch(name: str) -> None:
    a = make(4, 1, 5, dtype="float32", scale=3.0).detach()
    b = make(3, 1, dtype="float32", seed=1, scale=3.0).detach()
    if name == "pow":
        a = a.abs() + 0.1
    torch_name = {"div_trunc": "div", "div_floor": "div"}.get(name, name)
    kwargs = {"div_trunc": {"rounding_mode": "trunc"}, "div_floor": {"rounding_mode": "floor"}}.get(
        name, {}
    )
    theirs = getattr(torch, torch_name)(a, b, **kwargs)
    ours = ew.BINARY[name](as_numpy(a), as_numpy(b))
    check(ours, theirs, "float32", scale=3.0)


def test_integer_trunc_and_floor_division_follow_torch() -> None:
    a = torch.tensor([7, -7, 7, -7, 0])
    b = torch.tensor([2, 2, -2, -2, 3])
    np.testing.assert_array_equal(
        ew.trunc_divide(a.numpy(), b.numpy()), torch.div(a, b, rounding_mode="trunc")
    )
    np.testing.assert_array_equal(
        ew.floor_divide(a.numpy(), b.numpy()), torch.div(a, b, rounding_mode="floor")
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_lerp_addcmul_addcdiv_clamp_where(dtype: str) -> None:
    a, b, c = (make(2, 6, dtype=dtype, seed=s).detach() for s in range(3))
    for weight in (0.1, 0.9):
        check(
            round_to(ew.lerp(as_numpy(a), as_numpy(b), weight), dtype),
            torch.lerp(a, b, weight),
            dtype,
        )
    check(
        ew.addcmul(as_numpy(a), as_numpy(b), as_numpy(c), 0.5),
        torch.addcmul(a.float(), b.float(), c.float(), value=0.5),
        "float32",
    )
    check(
        ew.addcdiv(as_numpy(a), as_numpy(b), as_numpy(c), 0.5),
        torch.addcdiv(a.float(), b.float(), c.float(), value=0.5),
        "float32",
        scale=10.0,
    )
    check(ew.clamp(as_numpy(a), -0.5, 0.5), a.clamp(-0.5, 0.5), dtype)
    check(ew.where(as_numpy(a) > 0, as_numpy(b), as_numpy(c)), torch.where(a > 0, b, c), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_match_torch_on_strided_input(dtype: str) -> None:
    x = make(5, 6, 7, dtype=dtype).detach().transpose(0, 2)
    xf, xn = x.float(), as_numpy(x)
    check(red.sum_(xn, (0, 2)), xf.sum((0, 2)), "float32")
    check(red.mean(xn, 1, keepdims=True), xf.mean(1, keepdim=True), "float32")
    check(red.amax(xn, 0), xf.amax(0), "float32")
    check(red.amin(xn, None), xf.amin(), "float32")
    check(red.var(xn, 2, correction=1), xf.var(2), "float32")
    check(red.std(xn, 2, correction=0), xf.std(2, correction=0), "float32")
    check(red.logsumexp(xn, 1), torch.logsumexp(xf, 1), "float32")
    for order in (2.0, 1.0, 3.0, float("inf"), 0.0):
        check(
            red.vector_norm(xn, order, (0, 1)),
            torch.linalg.vector_norm(xf, order, (0, 1)),
            "float32",
            scale=5.0,
        )
    np.testing.assert_array_equal(red.argmax(xn, 1), xf.argmax(1))
    check(red.prod(xn[:2, :2], 0), xf[:2, :2].prod(0), "float32")
    check(red.cumsum(xn, 1), xf.cumsum(1), "float32", scale=3.0)


def test_integer_and_bool_reductions_accumulate_in_int64() -> None:
    ints = np.array([[2**31 - 1, 5], [1, 2]], np.int32)
    assert red.sum_(ints).dtype == np.int64
    assert red.sum_(ints) == torch.tensor(ints).sum().item()
    flags = np.array([True, False, True])
    assert red.sum_(flags) == 2
    assert bool(red.any_(flags))
    assert not bool(red.all_(flags))
