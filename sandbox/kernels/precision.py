"""Reduced-precision number formats on plain NumPy: bfloat16 as raw uint16 bits, float16 as numpy's
half, and rounding of float32 values to either. NumPy has no bfloat16 dtype, so bf16 data lives as
the upper 16 bits of a float32 and every conversion rounds to nearest, ties to even (as PyTorch and
the TPU MXU do)."""

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
"""float32 arrays: the compute format of every kernel."""
AnyArray = npt.NDArray[Any]

Precision = Literal["float32", "bfloat16", "float16"]
"""The storage format a kernel rounds its inputs and outputs to; compute is always float32."""

_BF16_QUIET_NAN = np.uint16(0x7FC0)


def bf16_bits_from_f32(values: AnyArray) -> npt.NDArray[np.uint16]:
    """Round float32 values to bfloat16 (nearest, ties to even) and return the raw bits."""
    as_f32 = np.asarray(values, dtype=np.float32)
    if not as_f32.flags.c_contiguous:
        as_f32 = as_f32.copy()  # np.ascontiguousarray would turn a 0-d array into 1-d
    bits = as_f32.view(np.uint32)
    lsb = (bits >> 16) & 1
    rounded = bits + lsb
    rounded += 0x7FFF
    out = (rounded >> 16).astype(np.uint16)
    nan_mask = np.isnan(as_f32)
    if nan_mask.any():
        out[nan_mask] = _BF16_QUIET_NAN
    return out


def f32_from_bf16_bits(bits: AnyArray) -> FloatArray:
    """Widen bfloat16 bits to float32 (exact)."""
    wide = np.asarray(bits, dtype=np.uint16).astype(np.uint32)
    wide <<= 16
    return wide.view(np.float32)


def round_to_bf16(values: AnyArray) -> FloatArray:
    """float32 values rounded to the nearest bfloat16, still as float32."""
    return f32_from_bf16_bits(bf16_bits_from_f32(values))


def round_to(values: AnyArray, precision: Precision) -> FloatArray:
    """`values` as float32, rounded to `precision` (a no-op copy-free cast for float32)."""
    if precision == "bfloat16":
        return round_to_bf16(values)
    if precision == "float16":
        return np.asarray(values, dtype=np.float32).astype(np.float16).astype(np.float32)
    return np.asarray(values, dtype=np.float32)
