"""Parallel batch kernels: one nogil call searches a whole batch on several
threads and returns its answer (private; see ``parallel.py``).

Each kernel is a ``prange`` over thread slots; slot ``t`` owns row ``t`` of
every scratch array (a 2-D stack, one row per slot) and takes searches
one at a time from a shared counter (``fetch_add``), heaviest first, until
none are left, so the threads end within one search of each other and no
Python runs between two searches. A slot writes everything it produces
into its own rows: its paths one after another into ``bufs[t]``, and per
search taken (``j``-th) the batch position, expanded count, path length
(``res_i[t, :, j]``) and cost (``res_f[t, j]``), so the two threads never
write the same cache line (a search's results in shared per-batch arrays
were ~5 lines a search written by both threads in turn). A search that
does not fit (the A* entry pool or the path row ran out) gets length -1
and its slot stops taking searches (the others go on), so at most one
search per slot is lost; ``st[t]`` says what ran out.

After the slots, the same call joins their answers in slot order (the
batch's ``answer`` takes entries in any order; each entry gets its own
path, byte for byte what a sequential search gives): the result arrays
are made once, and a second ``prange`` copies each slot's paths and writes
their cell centres, so the join is split between the threads too and no
separate gather call or array allocation per call is left to Python.
"""
from __future__ import annotations

import numpy as np
from numba import config, njit, prange

from ._jps import JPS_LINKS, R_EXPANDED, REGISTERS, jump_search
from ._kernels import ASTAR_LINKS, INF, astar_search, padded, trace_into

#: columns of a slot's row of ``st``: searches taken, path cells written,
#: room the row lacked (0: none), the A* entry pool ran out (1); rows are
#: 16 wide (128 bytes) so the slots' last writes share no cache line
ST_TAKEN, ST_USED, ST_NEED, ST_POOL = 0, 1, 2, 3
ST_WIDTH = 16

#: where a parallel call notes the caller's thread count in ``ctl`` (a
#: cache line away from the work counter at ``ctl[0]``): an exception
#: inside the call (say a ``MemoryError`` of the join) skips the restore
#: at its end, so the caller restores it from there
CTL_PREVIOUS = 8

#: a join copies the cells on all threads from this many cells on (below,
#: a second fork and join cost more than the half of the copy they save)
PARALLEL_COPY_CELLS = 1024

if config.DISABLE_JIT:          # the intrinsics need the compiler
    import numba

    def fetch_add(arr, i, v):
        old = arr[i]
        arr[i] += v
        return old

    def thread_count():
        return numba.get_num_threads()

    def use_threads(n):
        numba.set_num_threads(n)
else:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def thread_count(typingctx):
        """``numba.get_num_threads()`` (this thread's mask) as a direct call
        of the threading layer's ``get_num_threads``: numba's own overload
        calls it through a ctypes pointer, which a cached kernel cannot
        hold, and from Python it takes a process lock and a ctypes call
        (13 us a call measured in a frame, where caches are cold)."""
        sig = types.int64()

        def codegen(context, builder, signature, args):
            # declared as numba's parfor launcher declares it (same module)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.IntType(64), []), "get_num_threads")
            got = builder.trunc(builder.call(fn, []), ir.IntType(32))    # a C int
            return builder.sext(got, ir.IntType(64))
        return sig, codegen

    @intrinsic
    def use_threads(typingctx, n):
        """``numba.set_num_threads(n)`` for the parallel regions this thread
        launches next (``1 <= n <= NUMBA_NUM_THREADS``, unchecked), as a
        direct call (see ``thread_count``)."""
        if not isinstance(n, types.Integer):
            return None
        sig = types.void(n)

        def codegen(context, builder, signature, args):
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(32)]),
                "set_num_threads")
            builder.call(fn, [builder.trunc(args[0], ir.IntType(32))
                              if args[0].type.width > 32 else args[0]])
            return context.get_dummy_value()
        return sig, codegen

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


@njit(cache=True, nogil=True, inline="always")
def _slot(t, search, grid, scratch, links, starts, goals, order, gen, ctl, res_i, res_f, st,
          bufs):
    """Slot ``t`` of a parallel kernel: searches taken from ``ctl[0]``,
    each with ``search`` (``jump_search``, ``_kernels.astar_search``) on
    the slot's rows ``scratch``."""
    Wp, W = grid[0], grid[1]
    buf = bufs[t]
    n = order.shape[0]
    used = 0
    j = 0
    while True:
        k = fetch_add(ctl, 0, 1)
        if k >= n:
            break
        q = order[k]
        e = padded(goals[q], W, Wp)
        c, x, parent = search(grid, scratch, padded(starts[q], W, Wp), e, gen + j)
        res_i[t, 0, j] = q
        res_i[t, 1, j] = x
        res_f[t, j] = c
        j += 1
        m = 0
        if c == -1.0:                 # the A* entry pool ran out: this slot stops
            st[t, ST_POOL] = 1
            m = -1
        elif c < INF:
            m = trace_into(parent, e, Wp, W, links, buf, used)
            if m < 0:                 # no room: this slot stops (see above)
                st[t, ST_NEED] = used - m
                m = -1
        res_i[t, 2, j - 1] = m
        if m < 0:
            break
        used += m
    st[t, ST_TAKEN] = j
    st[t, ST_USED] = used


# a parallel kernel calls these, with ``_slot`` inlined: a kernel that
# hands a search function on to a compiled (not inlined) ``_slot`` is not
# cached by numba ("dynamic globals")
@njit(cache=True, nogil=True)
def _jps_slot(t, grid, i32s, f64s, starts, goals, order, gen, ctl, res_i, res_f, st, bufs):
    regs = np.zeros(REGISTERS, dtype=np.int64)     # the slot's, once per batch
    regs[R_EXPANDED] = -1
    _slot(t, jump_search, grid, (i32s[t], f64s[t], regs), JPS_LINKS, starts, goals, order,
          gen, ctl, res_i, res_f, st, bufs)


@njit(cache=True, nogil=True)
def _astar_slot(t, grid, stamps, gs, parents, pools, starts, goals, order, gen, ctl, res_i,
                res_f, st, bufs):
    enodes, ekeys, enexts, heads, fbits, ibits, regs = pools
    _slot(t, astar_search, grid, ((stamps[t], gs[t], parents[t]),
                                  (enodes[t], ekeys[t], enexts[t], heads[t], fbits[t], ibits[t],
                                   regs[t])),
          ASTAR_LINKS, starts, goals, order, gen, ctl, res_i, res_f, st, bufs)


@njit(cache=True, nogil=True)
def _reset(ctl, st):
    ctl[0] = 0
    for t in range(st.shape[0]):
        for c in range(4):
            st[t, c] = 0


@njit(cache=True, nogil=True)
def _collect(n, res_i, res_f, st):
    """The slots' answered searches in slot order: ``(index, cost,
    expanded, offsets, left, base, nodes, points)``; ``left``: the batch
    positions not answered (not taken, or stopped), ``base[t]``: where
    slot ``t``'s cells start in the joined path arrays ``nodes`` and
    ``points`` (made here; ``base[T]``: all cells)."""
    T = st.shape[0]
    m = 0
    for t in range(T):
        for j in range(st[t, ST_TAKEN]):
            if res_i[t, 2, j] >= 0:
                m += 1
    index = np.empty(m, dtype=np.int64)
    cost = np.empty(m, dtype=np.float64)
    expanded = np.empty(m, dtype=np.int64)
    offsets = np.empty(m + 1, dtype=np.int64)
    base = np.empty(T + 1, dtype=np.int64)
    answered = np.zeros(n, dtype=np.bool_)
    offsets[0] = 0
    i = 0
    for t in range(T):
        base[t] = offsets[i]
        for j in range(st[t, ST_TAKEN]):
            length = res_i[t, 2, j]
            if length >= 0:
                q = res_i[t, 0, j]
                index[i] = q
                cost[i] = res_f[t, j]
                expanded[i] = res_i[t, 1, j]
                offsets[i + 1] = offsets[i] + length
                answered[q] = True
                i += 1
    base[T] = offsets[m]
    left = np.empty(n - m, dtype=np.int64)
    i = 0
    for q in range(n):
        if not answered[q]:
            left[i] = q
            i += 1
    nodes = np.empty(base[T], dtype=np.int32)
    points = np.empty((base[T], 2), dtype=np.float64)
    return index, cost, expanded, offsets, left, base, nodes, points


@njit(cache=True, nogil=True)
def _write_paths(t, bufs, base, W, nodes, points):
    """Slot ``t``'s cells into ``nodes[base[t]:base[t + 1]]`` with their
    centres ``(x + 0.5, y + 0.5)`` in ``points``. The row ``y = v // W``
    comes from a multiplication by ``1 / W``: exact (``(v + 0.5) / W`` is
    at least ``0.5 / W`` from an integer, far above the rounding error for
    any ``v < 2**51``) and much cheaper than a 64-bit division a cell."""
    row = bufs[t]
    o = base[t]
    inv = 1.0 / W
    for j in range(base[t + 1] - o):
        v = row[j]
        nodes[o + j] = v
        y = int((v + 0.5) * inv)
        points[o + j, 0] = v - y * W + 0.5
        points[o + j, 1] = y + 0.5


@njit(cache=True, nogil=True)
def _join_serial(bufs, base, W, nodes, points):
    for t in range(base.shape[0] - 1):
        _write_paths(t, bufs, base, W, nodes, points)


@njit(cache=True, nogil=True, parallel=True)
def _join(n, T, W, res_i, res_f, st, bufs):
    """The batch's results from the ``T`` slots: ``(index, cost, expanded,
    nodes, offsets, points, left)``, the paths copied on every thread from
    ``PARALLEL_COPY_CELLS`` cells on. A parallel kernel of its own, called
    (not inlined) by both batch kernels: numba does not parallelise a
    prange inlined from a helper; it runs on the thread count the caller
    set."""
    index, cost, expanded, offsets, left, base, nodes, points = _collect(n, res_i, res_f, st)
    if base[T] >= PARALLEL_COPY_CELLS:
        for t in prange(T):
            _write_paths(t, bufs, base, W, nodes, points)
    else:
        _join_serial(bufs, base, W, nodes, points)
    return index, cost, expanded, nodes, offsets, points, left


@njit(cache=True, nogil=True, inline="always")
def _begin(starts, goals, W, ctl, st, T):
    """``(order, previous)``: the batch positions heaviest first, and this
    thread's numba thread count, set to ``T`` for the call's regions (a
    parallel kernel restores it at its end; inlined, so the intrinsics
    stay in the kernel's module as numba's parfor launcher has them)."""
    order = heaviest_first(starts, goals, W)
    _reset(ctl, st)
    previous = thread_count()
    ctl[CTL_PREVIOUS] = previous    # for the caller to restore if the call raises
    if previous != T:
        use_threads(T)              # this call's regions only (restored at the end)
    return order, previous


@njit(cache=True, nogil=True, parallel=True)
def jps_parallel(grid, i32s, f64s, starts, goals, gen, ctl, res_i, res_f, st, bufs):
    """``jps_batch`` over ``i32s.shape[0]`` thread slots: search ``q =
    order[k]`` (heaviest first) for every ``k`` taken from ``ctl[0]``;
    slot ``t`` uses ``i32s[t]`` (stamp, parent, heap node, heap position),
    ``f64s[t]`` (g, heap key) and generations from ``gen + t * n`` on
    (``n`` searches). Returns ``(index, cost, expanded, nodes, offsets,
    points, left)``: the answered batch positions ``index`` with their
    answers as ``PathBatch.answer`` takes them, and the positions ``left``
    unanswered because a slot ran out of room (``st``: what it lacked).
    The call runs on ``T`` threads whatever this thread's numba mask says
    (set and restored inside: no Python call for it)."""
    n, T, W = starts.shape[0], i32s.shape[0], grid[1]
    order, previous = _begin(starts, goals, W, ctl, st, T)
    for t in prange(T):
        _jps_slot(t, grid, i32s, f64s, starts, goals, order, gen + t * n, ctl, res_i, res_f,
                  st, bufs)
    out = _join(n, T, W, res_i, res_f, st, bufs)
    if previous != T:
        use_threads(previous)
    return out


@njit(cache=True, nogil=True, parallel=True)
def astar_parallel(grid, stamps, gs, parents, pools, starts, goals, gen, ctl, res_i, res_f,
                   st, bufs):
    """``astar_batch`` over ``stamps.shape[0]`` thread slots, as
    ``jps_parallel``: slot ``t`` searches with row ``t`` of ``stamps``,
    ``gs``, ``parents`` and of the entry pools ``pools`` (``enodes,
    ekeys, enexts, heads, fbits, ibits, regs``); a slot whose pool ran out stops
    with ``st[t, ST_POOL]`` set."""
    n, T, W = starts.shape[0], stamps.shape[0], grid[1]
    order, previous = _begin(starts, goals, W, ctl, st, T)
    for t in prange(T):
        _astar_slot(t, grid, stamps, gs, parents, pools, starts, goals, order, gen + t * n,
                    ctl, res_i, res_f, st, bufs)
    out = _join(n, T, W, res_i, res_f, st, bufs)
    if previous != T:
        use_threads(previous)
    return out
