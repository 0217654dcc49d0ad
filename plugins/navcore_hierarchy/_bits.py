"""Bit counts on uint64 words for the numba kernels (private).

``popcount(x)`` (set bits) and ``ctz(x)`` (trailing zeros, ``x != 0``)
compile to single instructions (LLVM's ctpop and cttz) inside jitted code
and are plain Python under ``NUMBA_DISABLE_JIT=1``.
"""
from __future__ import annotations

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
