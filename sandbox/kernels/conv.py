"""conv1d/conv2d (zero padding, stride, dilation, groups) by im2col + matmul, forward and backward.

x is (N, C, H, W) (or (N, C, L) for 1-D), weight (O, C // groups, kh, kw), PyTorch layout."""

from dataclasses import dataclass

import numpy as np

from sandbox.kernels.precision import AnyArray, FloatArray, Precision, round_to


@dataclass(frozen=True)
class ConvGeometry:
    """Stride, zero padding and dilation per spatial axis (height, width), and the group count."""

    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    dilation: tuple[int, int] = (1, 1)
    groups: int = 1

    @classmethod
    def of(
        cls,
        stride: tuple[int, ...] | int = 1,
        padding: tuple[int, ...] | int = 0,
        dilation: tuple[int, ...] | int = 1,
        groups: int = 1,
        *,
        spatial: int = 2,
    ) -> "ConvGeometry":
        """Build from PyTorch-style arguments (ints or per-axis tuples) for 1 or 2 spatial axes."""

        def pair(value: tuple[int, ...] | int, fill: int) -> tuple[int, int]:
            items = (value,) * spatial if isinstance(value, int) else tuple(value)
            return (fill, items[0]) if spatial == 1 else (items[0], items[1])

        return cls(pair(stride, 1), pair(padding, 0), pair(dilation, 1), groups)


def _columns(x: FloatArray, kernel: tuple[int, int], geo: ConvGeometry) -> FloatArray:
    """Patches of padded `x` as (N, C, kh, kw, Ho, Wo) (a strided view, no copy)."""
    (ph, pw), (sh, sw), (dh, dw) = geo.padding, geo.stride, geo.dilation
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x
    n, c, h, w = padded.shape
    out_h = (h - dh * (kernel[0] - 1) - 1) // sh + 1
    out_w = (w - dw * (kernel[1] - 1) - 1) // sw + 1
    s = padded.strides
    return np.lib.stride_tricks.as_strided(
        padded,
        (n, c, kernel[0], kernel[1], out_h, out_w),
        (s[0], s[1], s[2] * dh, s[3] * dw, s[2] * sh, s[3] * sw),
        writeable=False,
    )


def conv2d(
    x: AnyArray,
    weight: AnyArray,
    bias: AnyArray | None = None,
    geometry: ConvGeometry | None = None,
    *,
    precision: Precision = "float32",
) -> FloatArray:
    """2-D cross-correlation as PyTorch's conv2d, float32 accumulation."""
    geo = geometry or ConvGeometry()
    inputs = round_to(x, precision)
    kernel = round_to(weight, precision)
    out_channels, per_group, kh, kw = kernel.shape
    cols = _columns(inputs, (kh, kw), geo)
    n, _, _, _, out_h, out_w = cols.shape
    grouped = cols.reshape(n, geo.groups, per_group * kh * kw, out_h * out_w)
    w_grouped = kernel.reshape(geo.groups, out_channels // geo.groups, per_group * kh * kw)
    out = np.matmul(w_grouped, grouped).reshape(n, out_channels, out_h, out_w)
    if bias is not None:
        out += round_to(bias, precision).reshape(1, -1, 1, 1)
    return round_to(out, precision) if precision != "float32" else out


def conv2d_backward(
    grad: AnyArray,
    x: AnyArray,
    weight: AnyArray,
    geometry: ConvGeometry | None = None,
    *,
    precision: Precision = "float32",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """`(grad_x, grad_weight, grad_bias)` of conv2d."""
    geo = geometry or ConvGeometry()
    inputs = round_to(x, precision)
    kernel = round_to(weight, precision)
    grad_out = np.asarray(grad, dtype=np.float32)
    out_channels, per_group, kh, kw = kernel.shape
    cols = _columns(inputs, (kh, kw), geo)
    n, _, _, _, out_h, out_w = cols.shape
    g_grouped = grad_out.reshape(n, geo.groups, out_channels // geo.groups, out_h * out_w)
    c_grouped = cols.reshape(n, geo.groups, per_group * kh * kw, out_h * out_w)
    grad_w = np.matmul(g_grouped, np.swapaxes(c_grouped, -1, -2)).sum(axis=0)
    w_grouped = kernel.reshape(geo.groups, out_channels // geo.groups, per_group * kh * kw)
    grad_cols = np.matmul(np.swapaxes(w_grouped, -1, -2), g_grouped)
    grad_cols = grad_cols.reshape(n, per_group * geo.groups, kh, kw, out_h, out_w)
    grad_x = _fold(grad_cols, inputs.shape, geo)
    grad_b = grad_out.sum(axis=(0, 2, 3))
    return grad_x, grad_w.reshape(kernel.shape), grad_b


def _fold(grad_cols: FloatArray, x_shape: tuple[int, ...], geo: ConvGeometry) -> FloatArray:
    """Scatter-add patch gradients (N, C, kh, kw, Ho, Wo) back onto the input (col2im)."""
    (ph, pw), (sh, sw), (dh, dw) = geo.padding, geo.stride, geo.dilation
    n, c, h, w = x_shape
    padded = np.zeros((n, c, h + 2 * ph, w + 2 * pw), np.float32)
    _, _, kh, kw, out_h, out_w = grad_cols.shape
    for i in range(kh):
        for j in range(kw):
            top, left = i * dh, j * dw
            padded[
                :, :, top : top + sh * (out_h - 1) + 1 : sh, left : left + sw * (out_w - 1) + 1 : sw
            ] += grad_cols[:, :, i, j]
    return padded[:, :, ph : ph + h, pw : pw + w]


def conv1d(
    x: AnyArray,
    weight: AnyArray,
    bias: AnyArray | None = None,
    geometry: ConvGeometry | None = None,
    *,
    precision: Precision = "float32",
) -> FloatArray:
    """1-D cross-correlation: x (N, C, L), weight (O, C // groups, k); geometry on the width."""
    out = conv2d(x[:, :, None, :], weight[:, :, None, :], bias, geometry, precision=precision)
    return out[:, :, 0, :]


def conv1d_backward(
    grad: AnyArray,
    x: AnyArray,
    weight: AnyArray,
    geometry: ConvGeometry | None = None,
    *,
    precision: Precision = "float32",
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """`(grad_x, grad_weight, grad_bias)` of conv1d."""
    gx, gw, gb = conv2d_backward(
        np.asarray(grad)[:, :, None, :],
        np.asarray(x)[:, :, None, :],
        np.asarray(weight)[:, :, None, :],
        geometry,
        precision=precision,
    )
    return gx[:, :, 0, :], gw[:, :, 0, :], gb
