"""Bit and vector helpers for the numba kernels (private).

``popcount(x)`` (set bits) and ``ctz(x)`` (trailing zeros, ``x != 0``)
compile to single instructions (LLVM's ctpop and cttz) inside jitted code
and are plain Python under ``NUMBA_DISABLE_JIT=1``, as are ``fill16``
(16 int32 cells in one vector store) and ``pack8`` (8 bytes of 0/1 as 8
bits: one unaligned load and a multiply).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload


def popcount(x):
    """Number of set bits of the uint64 ``x``."""
    return bin(int(x)).count("1")


def ctz(x):
    """Index of the lowest set bit of the uint64 ``x`` (``x != 0``)."""
    x = int(x)
    return (x & -x).bit_length() - 1


@intrinsic
def _ctpop(typingctx, x):
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return types.int64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))   # x != 0: no zero case
    return types.int64(types.uint64), codegen


@overload(popcount, jit_options={"cache": True})
def _popcount_jit(x):
    if x == types.uint64:
        return lambda x: _ctpop(x)


@overload(ctz, jit_options={"cache": True})
def _ctz_jit(x):
    if x == types.uint64:
        return lambda x: _cttz(x)


def fill16(out, o, v):
    """``out[o:o + 16] = v`` for an int32 array with ``o + 16 <= out.size``:
    one vector store in jitted code (LLVM left a loop of 16 as 16 scalar
    stores)."""
    out[o:o + 16] = v


@intrinsic
def _store16(typingctx, out, o, v):
    if not (isinstance(out, types.Array) and out.dtype == types.int32 and out.ndim == 1
            and isinstance(o, types.Integer) and isinstance(v, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        i32 = ir.IntType(32)
        vec_t = ir.VectorType(i32, 16)
        val = context.cast(builder, args[2], sig.args[2], types.int32)
        vec = ir.Constant(vec_t, ir.Undefined)
        for k in range(16):
            vec = builder.insert_element(vec, val, ir.Constant(i32, k))
        ptr = builder.gep(arr.data, [args[1]])
        builder.store(vec, builder.bitcast(ptr, vec_t.as_pointer()), align=4)
        return context.get_dummy_value()
    return types.void(out, o, v), codegen


@overload(fill16, jit_options={"cache": True})
def _fill16_jit(out, o, v):
    return lambda out, o, v: _store16(out, o, v)


def pack8(a, o):
    """The eight 0/1 bytes ``a[o:o + 8]`` of a uint8 array as the low eight
    bits of a uint64 (bit ``k``: ``a[o + k]``); ``o + 8 <= a.size``."""
    w = 0
    for k in range(8):
        w |= int(a[o + k]) << k
    return np.uint64(w)


@intrinsic
def _load64(typingctx, a, o):
    if not (isinstance(a, types.Array) and a.dtype == types.uint8 and a.ndim == 1
            and isinstance(o, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = builder.gep(arr.data, [args[1]])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)
    return types.uint64(a, o), codegen


_GATHER = np.uint64(0x0102040810204080)   # byte k's low bit -> bit 56 + k, no carries


@overload(pack8, jit_options={"cache": True})
def _pack8_jit(a, o):
    def impl(a, o):
        return (_load64(a, o) * _GATHER) >> np.uint64(56)   # one unaligned load
    return impl
