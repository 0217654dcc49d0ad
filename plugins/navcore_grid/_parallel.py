"""Parallel batch kernels: one nogil call searches a whole batch on several
threads (private; see ``parallel.py``).

Each kernel is a ``prange`` over thread slots; slot ``t`` owns row ``t`` of
every scratch array (a 2-D stack, one row per slot) and takes searches
one at a time from a shared counter (``fetch_add``), heaviest first, until
none are left, so the threads end within one search of each other and no
Python runs between two searches. A slot writes its paths into its own row
of ``bufs``; ``gather`` joins them in batch order afterwards. A search
that does not fit (the A* entry pool or the path row ran out) is marked
``length -1`` and its slot stops taking searches (the others go on), so
at most one search per slot is lost; the wrapper grows what ran out and
calls again for the searches not done (``length`` < 0 on entry: -2).
"""
from __future__ import annotations

import numpy as np
from numba import config, njit, prange

from ._jps import jump_search, trace_nodes
from ._kernels import INF, grid_astar, trace_into

if config.DISABLE_JIT:          # the intrinsic needs the compiler
    def fetch_add(arr, i, v):
        old = arr[i]
        arr[i] += v
        return old
else:
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def fetch_add(typingctx, arr, i, v):
        """``arr[i] += v`` as one atomic step (int64 ``arr``); returns the
        old value. numba has no public atomics: this is LLVM's atomicrmw."""
        if not (isinstance(arr, types.Array) and arr.dtype == types.int64):
            return None
        sig = types.int64(arr, types.intp, types.int64)

        def codegen(context, builder, signature, args):
            ary_t = signature.args[0]
            ary = context.make_array(ary_t)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, ary_t, ary, [args[1]])
            return builder.atomic_rmw("add", ptr, args[2], "seq_cst")
        return sig, codegen


@njit(cache=True, nogil=True)
def heaviest_first(starts, goals, W):
    """Batch positions ordered by the pair's straight-line moves
    (``max(|dx|, |dy|)``), longest first (stable): the long searches go
    first, so the last ones to finish are short."""
    n = starts.shape[0]
    key = np.empty(n, dtype=np.int64)
    for q in range(n):
        dx = abs(starts[q] % W - goals[q] % W)
        dy = abs(starts[q] // W - goals[q] // W)
        key[q] = -max(dx, dy)
    return np.argsort(key, kind="mergesort")


@njit(cache=True, nogil=True, parallel=True)
def jps_parallel(free, rowbits, colbits, i32s, f64s, Wp, W, diag, lm, nk, lscale, starts,
                 goals, order, gens, counter, cost, expanded, slot, at, length, bufs, need):
    """``jps_batch`` over ``i32s.shape[0]`` thread slots: search ``q =
    order[k]`` for every ``k`` taken from ``counter[0]``; slot ``t`` uses
    ``i32s[t]`` (stamp, parent, heap node, heap position), ``f64s[t]``
    (g, heap key) and generations from ``gens[t]`` on, and writes path
    ``q``'s cells to ``bufs[t, at[q]:at[q] + length[q]]`` (``slot[q] =
    t``; length 0 when unreachable, -1 when the row had no room, and then
    ``need[t]`` the row length that would have held it)."""
    n = order.shape[0]
    for t in prange(i32s.shape[0]):
        stamp, parent, hnode, hpos = i32s[t, 0], i32s[t, 1], i32s[t, 2], i32s[t, 3]
        g, hkey = f64s[t, 0], f64s[t, 1]
        buf = bufs[t]
        used = 0
        gen = gens[t]
        while True:
            k = fetch_add(counter, 0, 1)
            if k >= n:
                break
            q = order[k]
            s = (starts[q] // W + 1) * Wp + starts[q] % W + 1
            e = (goals[q] // W + 1) * Wp + goals[q] % W + 1
            c, x = jump_search(free, rowbits, colbits, stamp, Wp, diag, s, e, g, parent,
                               hnode, hkey, hpos, gen, lm, nk, lscale)
            gen += 1
            cost[q] = c
            expanded[q] = x
            slot[q] = t
            at[q] = used
            m = 0
            if c < INF:
                m = trace_nodes(parent, e, Wp, W, buf, used)
                if m < 0:             # no room: this slot stops (see above)
                    need[t] = used - m
                    length[q] = -1
                    break
                used += m
            length[q] = m


@njit(cache=True, nogil=True, parallel=True)
def astar_parallel(stamps, pcost, uniform, Wp, W, ndirs, off, dxs, dys, needs, lens,
                   corner_cut, ha, hb, hscale, lm, nk, lscale, starts, goals, gs, parents,
                   enodes, ekeys, enexts, heads, fbits, ibits, order, gens, counter, cost,
                   expanded, slot, at, length, bufs, need):
    """``astar_batch`` over ``stamps.shape[0]`` thread slots, as
    ``jps_parallel``: slot ``t`` searches with row ``t`` of ``stamps``,
    ``gs``, ``parents`` and of the entry pools; ``length[q]`` -1 when the
    pool (``cost[q]`` -1) or the path row ran out."""
    n = order.shape[0]
    for t in prange(stamps.shape[0]):
        stamp, g, parent = stamps[t], gs[t], parents[t]
        enode, ekey, enext, head = enodes[t], ekeys[t], enexts[t], heads[t]
        fb, ib = fbits[t], ibits[t]
        buf = bufs[t]
        used = 0
        gen = gens[t]
        while True:
            k = fetch_add(counter, 0, 1)
            if k >= n:
                break
            q = order[k]
            s = (starts[q] // W + 1) * Wp + starts[q] % W + 1
            e = (goals[q] // W + 1) * Wp + goals[q] % W + 1
            c, x = grid_astar(stamp, pcost, uniform, Wp, ndirs, off, dxs, dys, needs, lens,
                              corner_cut, ha, hb, hscale, lm, nk, lscale, s, e, g, parent,
                              enode, ekey, enext, head, fb, ib, gen)
            gen += 1
            cost[q] = c
            expanded[q] = x
            slot[q] = t
            at[q] = used
            m = 0
            if c == -1.0:             # the entry pool ran out: this slot stops
                length[q] = -1
                break
            if c < INF:
                m = trace_into(parent, e, Wp, W, buf, used)
                if m < 0:             # no room: this slot stops (see above)
                    need[t] = used - m
                    length[q] = -1
                    break
                used += m
            length[q] = m


@njit(cache=True, nogil=True)
def gather(bufs, slot, at, length, done, W):
    """The paths of batch positions ``done`` (in that order) one after
    another: ``(nodes, offsets, points)`` as ``PathBatch.answer`` takes
    them, cell centres included."""
    k = done.shape[0]
    offsets = np.empty(k + 1, dtype=np.int64)
    offsets[0] = 0
    for i in range(k):
        offsets[i + 1] = offsets[i] + length[done[i]]
    nodes = np.empty(offsets[k], dtype=np.int32)
    points = np.empty((offsets[k], 2), dtype=np.float64)
    for i in range(k):
        q = done[i]
        row = bufs[slot[q]]
        a = at[q]
        o = offsets[i]
        for j in range(length[q]):
            v = row[a + j]
            nodes[o + j] = v
            y = v // W
            points[o + j, 0] = v - y * W + 0.5
            points[o + j, 1] = y + 0.5
    return nodes, offsets, points
