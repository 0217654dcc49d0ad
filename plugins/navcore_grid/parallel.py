"""A batch searched by several threads in one nogil call (``PathBatch.threads``).

The scheduler hands a round's searches of a grid to ``navcore_find_paths``
as one batch with ``threads`` > 1; ``find_paths_parallel`` answers it with
one call of a ``prange`` kernel (``_parallel.py``) in which numba's threads
take the searches from a shared counter, with no Python (and no GIL)
between two searches. Python worker threads could not do that: each chunk
handed to one cost a wake-up and GIL hand-overs of tens of microseconds,
more than the searches of a typical frame (see BENCHMARKS.md, scheduler).

Each thread slot has its own scratch, rows of 2-D arrays made once per
grid and thread count (``ParallelScratch``, kept in the grid's
``parallel_stacks`` and registered in ``graph.scratch_sets`` so updates
keep its blocked sentinels), so nothing is allocated per round but the
result arrays. The grid itself comes as its search inputs
(``inputs.search_inputs``), as for one search.

Every parallel call is inside ``navcore.parallel.parallel_section``
(numba's ``workqueue`` layer aborts the process when two Python threads
run parallel kernels at once); when another thread holds it, the batch is
searched sequentially rather than waiting.
"""
from __future__ import annotations

import threading

import numba
import numpy as np

from navcore.parallel import max_threads, parallel_section

from . import _kernels as K
from . import _parallel as P
from .inputs import search_inputs

#: searches a slot's result rows hold at first (they grow to a batch's size)
_ROOM = 256


def usable_threads(threads: int) -> int:
    """``threads`` capped at numba's thread pool (``NUMBA_NUM_THREADS``);
    the scheduler asks for several only for a batch whose expected work
    pays for them (``navcore_scheduler.rounds.MIN_PARALLEL_S``)."""
    return max_threads(int(threads))


class ParallelScratch:
    """Search memory for ``threads`` slots of one grid: row ``t`` of each
    array belongs to slot ``t``. ``stamp`` (A*, with the permanent
    ``BLOCKED`` sentinel) is 2-D, so ``sync_blocked`` updates every row."""

    def __init__(self, graph, threads: int):
        n = graph.padded_free.size
        self.threads = threads
        row = np.where(graph.padded_free, 0, K.BLOCKED).astype(np.int32)
        self.stamp = np.empty((threads, n), dtype=np.int32)
        self.stamp[:] = row
        self.g = _touched((threads, n), dtype=np.float64)
        self.parent = _touched((threads, n), dtype=np.int32)
        self.gen = 0
        self._pool = None
        self._jps = None
        # path rows: half a cell per cell, at least 64 Ki cells (256 KiB):
        # the maze scene's first round of 400 long paths needed 68 Ki cells
        # a slot and, with rows of 8 Ki, four calls as the rows grew
        self.bufs = _touched((threads, max(1 << 16, n // 2)), dtype=np.int32)
        # per slot, per search it took: batch position, expanded, path
        # length (res_i) and cost (res_f); ``room`` searches a slot (grows)
        self.res_i = np.zeros((threads, 3, _ROOM), dtype=np.int64)
        self.res_f = np.zeros((threads, _ROOM), dtype=np.float64)
        self.st = np.zeros((threads, P.ST_WIDTH), dtype=np.int64)
        self.ctl = np.zeros(16, dtype=np.int64)   # [0]: the work counter, [8]: see P.CTL_PREVIOUS
        self.lock = threading.Lock()       # one batch at a time per stack

    def pool(self, grow=False):
        """A* entry pools, one row per slot (one entry per cell, doubled by
        ``grow``)."""
        if self._pool is None or grow:
            cap = self.stamp.shape[1] if self._pool is None else 2 * self._pool[0].shape[1]
            T = self.threads
            # the rows of the small arrays are padded to 128 bytes: slots
            # writing the same cache line (false sharing) made A* on two
            # threads hardly faster than on one (1.07x, brc202d)
            fbits = _touched((T, 16), dtype=np.float64)
            regs = np.zeros((T, 16), dtype=np.int64)      # grid_astar's registers
            regs[:, K.R_EXPANDED] = -1
            self._pool = (_touched((T, cap), np.int32), _touched((T, cap), np.int64),
                          _touched((T, cap), np.int32), np.empty((T, 96), np.int32),
                          fbits, fbits.view(np.int64), regs)
        return self._pool

    def jps(self):
        """``(i32, f64)`` of ``_parallel.jps_parallel``: per slot the rows
        stamp, parent, heap node, heap position; g, heap key."""
        if self._jps is None:
            n = self.stamp.shape[1]
            self._jps = (_touched((self.threads, 4, n), np.int32),
                         _touched((self.threads, 2, n), np.float64))
        return self._jps

    def reserve_gens(self, graph, k: int) -> int:
        """``k`` generations for each slot for a batch of ``k`` searches (a
        slot may take all of them), wiping the stamps at wrap-around; slot
        ``t`` starts at the returned first one plus ``t * k``. Also makes
        room for ``k`` searches in each slot's result rows."""
        T = self.threads
        if 2 * (self.gen + T * k) + 1 >= K.BLOCKED:
            self.gen = 0
            self.stamp[:] = np.where(graph.padded_free, 0, K.BLOCKED)
            if self._jps is not None:
                self._jps[0][:, 0] = 0
        if k > self.res_f.shape[1]:
            room = max(k, 2 * self.res_f.shape[1])
            self.res_i = np.zeros((T, 3, room), dtype=np.int64)
            self.res_f = np.zeros((T, room), dtype=np.float64)
        first = self.gen + 1
        self.gen += T * k
        return first

    def grow_bufs(self, need: int) -> None:
        self.bufs = _touched((self.threads, max(2 * self.bufs.shape[1], need)), np.int32)


def _touched(shape, dtype=np.float64):
    """Zeros with every page written (``np.zeros`` only maps them, and the
    first searches would page-fault inside a frame; see ``search._touched``)."""
    a = np.empty(shape, dtype=dtype)
    a.fill(0)
    return a


def parallel_scratch(graph, threads: int) -> ParallelScratch:
    """The grid's stack for ``threads`` slots (made once, registered for
    updates; this thread's own scratch set is made first, so updates find
    a 1-D one at ``scratch_sets[0]``)."""
    from .search import scratch_for
    stacks = graph.parallel_stacks
    sc = stacks.get(threads)
    if sc is None:
        scratch_for(graph)
        sc = ParallelScratch(graph, threads)
        with graph.scratch_lock:
            if threads in stacks:        # another thread made it meanwhile
                return stacks[threads]
            graph.scratch_sets.append(sc)
            stacks[threads] = sc
    return sc


def find_paths_parallel(graph, batch, kind: str, idx: np.ndarray, threads: int) -> bool:
    """Answer the batch entries ``idx`` with ``kind`` (``jps``, ``astar``,
    ``dijkstra``) on ``threads`` threads in one call (again, for the
    entries that ran out of room, after the room grew: rare once the rows
    have grown to a grid's paths). True when all of ``idx`` is answered;
    False when nothing was done: the stack is busy (another thread's
    batch on this grid), and the caller searches sequentially."""
    threads = usable_threads(threads)
    if threads < 2:
        return False
    sc = graph.parallel_stacks.get(threads)
    if sc is None:
        sc = parallel_scratch(graph, threads)
    if not sc.lock.acquire(blocking=False):
        return False
    try:
        with parallel_section(blocking=False) as may_run:
            if not may_run:     # another thread's parallel kernel (workqueue)
                return False
            while idx.size:     # the kernel runs on the stack's thread count
                idx = _answer(graph, batch, kind, idx, sc)
    finally:
        sc.lock.release()
    return True


def _answer(graph, batch, kind, idx, sc) -> np.ndarray:
    """One parallel call over entries ``idx``; answers what fitted and
    returns the entries that did not (after growing what they lacked)."""
    k = idx.size
    starts, goals = batch.starts, batch.goals
    whole = k == len(batch)            # then idx is 0..k-1 (todo() of a fresh batch)
    if not whole:
        starts, goals = starts[idx], goals[idx]
    gen = sc.reserve_gens(graph, k)
    sc.ctl[P.CTL_PREVIOUS] = 0
    try:
        inputs = search_inputs(graph)
        if kind == "jps":
            out = P.jps_parallel(inputs.jps, *sc.jps(), starts, goals, gen, sc.ctl,
                                 sc.res_i, sc.res_f, sc.st, sc.bufs)
        else:
            grid = inputs.astar if kind == "astar" else inputs.dijkstra
            out = P.astar_parallel(grid, sc.stamp, sc.g, sc.parent, sc.pool(), starts, goals,
                                   gen, sc.ctl, sc.res_i, sc.res_f, sc.st, sc.bufs)
    except BaseException:
        previous = int(sc.ctl[P.CTL_PREVIOUS])
        if previous > 0:              # the kernel changed this thread's count: back
            numba.set_num_threads(previous)
        raise
    index, cost, expanded, nodes, offsets, points, left = out
    if index.size:
        batch.answer(index if whole else idx[index], cost, expanded, nodes, offsets, points,
                     kind)
    if left.size == 0:
        return left
    st = sc.st
    if st[:, P.ST_POOL].any():          # an A* entry pool ran out
        sc.pool(grow=True)
    need = int(st[:, P.ST_NEED].max())
    if need:                            # a path row ran out
        sc.grow_bufs(need)
    return idx[left]


def warm_up(graph, threads: int) -> None:
    """Load the parallel kernels and make the stack for ``threads`` slots
    (touching its pages) before the first frame."""
    from navcore.types import PathBatch
    threads = usable_threads(threads)
    if threads < 2:
        return
    first = graph.first_walkable()          # wherever it is (first rows of walls)
    if first.size == 0:
        return
    s = np.full(2, first[0], dtype=np.int32)
    from .search import jps_applies
    for kind in ("astar", "jps") if jps_applies(graph) else ("astar",):
        b = PathBatch(graph.graph_id, kind, s, s)
        find_paths_parallel(graph, b, kind, b.todo(), threads)
