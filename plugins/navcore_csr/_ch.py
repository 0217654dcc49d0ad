"""numba kernels of the directed contraction hierarchy (private; see
``hierarchy.py``).

Build. Every remaining node keeps two edge lists in one pool: slot ``2v``
its outgoing edges, slot ``2v + 1`` its incoming ones (``start``/``deg``/
``cap`` per slot; a full list moves to the end of the pool with twice the
room). An edge is an *arc*: an id below ``m`` is a position in the input
CSR (the cheapest of its parallel edges), ``m + k`` is shortcut ``k`` with
children ``sc_c1[k]`` (``u -> v``) and ``sc_c2[k]`` (``v -> w``).

Nodes are contracted in rounds: each round takes every remaining node
whose priority is the smallest within two hops (a 2-hop independent set,
ties broken by a hash so the sets are not stripes), runs its witness
searches in parallel, then adds the shortcuts one thread at a time. The
witness searches of a round avoid every node of the round, so a witness
never leans on a node that disappears in the same round (with zero-weight
edges two such witnesses could vouch for each other). A contracted node's
lists are frozen: they are its upward edges (out: forward graph, in:
backward graph), read once at the end by :func:`finalize`.

Priority (RoutingKit's, the edge difference weighted twice): ``level +
2 added / removed + added hops / removed hops``; the neighbours of
contracted nodes are estimated again (in parallel when many) before the
next round. An estimate looks for witnesses among paths of at most three
edges, without a heap (``sim_limit`` 0), or with bounded Dijkstras like
the contraction's (``sim_limit`` settled nodes).

Queries work on node ids renumbered by rank (``rank[v]``, 0 contracted
first), so a search's labels cluster in memory; both upward graphs are
CSR over ranks with heads above the node.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import get_thread_id, njit, prange

from navcore._kernels import heap4_pop, heap4_place
from navcore._kernels import lazy_push as _push, lazy_take
from .buckets import fill_buckets, scan_buckets

INF = np.inf
#: stamps reset before the generation counter overflows int32
_GEN_MAX = 2 ** 31 - 16
#: fewer items than this run on the calling thread: a parallel launch costs
#: tens of microseconds, and milliseconds when another process has the other
#: core (Monaco, 60 rounds: 6 ms alone, 2.2 s under load, 2026-11-25)
_PAR_MIN = 512


@njit(cache=True, nogil=True, inline="always")
def _next_gen(gens, row, a, b):
    """The next generation of scratch row ``row``; its stamps ``a[row]``
    and ``b[row]`` are reset before the counter would overflow."""
    if gens[row] >= _GEN_MAX:
        a[row, :] = 0
        b[row, :] = 0
        gens[row] = 0
    gens[row] += 1
    return gens[row]


# -- build ----------------------------------------------------------------------

class Pool(NamedTuple):
    """The edge lists of the build (slot ``2v`` out, ``2v + 1`` in); the
    entry arrays ``nbr``/``wt``/``arc``/``hops`` are replaced when they grow."""
    start: np.ndarray
    deg: np.ndarray
    cap: np.ndarray
    nbr: np.ndarray
    wt: np.ndarray
    arc: np.ndarray
    hops: np.ndarray


class Rounds(NamedTuple):
    """The per-node state of the contraction rounds."""
    level: np.ndarray
    prio: np.ndarray
    rank: np.ndarray
    order: np.ndarray
    alive: np.ndarray
    block: np.ndarray
    dmark: np.ndarray
    dirty: np.ndarray
    best: np.ndarray
    chosen: np.ndarray


class WitnessRows(NamedTuple):
    """Per-thread scratch rows of the witness searches."""
    dist: np.ndarray
    stamp: np.ndarray
    tmark: np.ndarray
    gens: np.ndarray
    hk: np.ndarray
    hn: np.ndarray


@njit(cache=True, nogil=True)
def grown(a, size, keep):
    """``a`` copied into room for ``size`` entries, the first ``keep`` kept."""
    out = np.empty(size, dtype=a.dtype)
    out[:keep] = a[:keep]
    return out


@njit(cache=True, nogil=True)
def build_init(offsets, targets, weights):
    """The pool of edge lists of the input graph: self-loops and inf edges
    dropped, parallel edges merged into the cheapest. Returns ``(pool, top)``
    (:class:`Pool`)."""
    n = offsets.shape[0] - 1
    indeg = np.zeros(n, dtype=np.int64)
    for e in range(targets.shape[0]):
        indeg[targets[e]] += 1
    start = np.empty(2 * n, dtype=np.int64)
    deg = np.zeros(2 * n, dtype=np.int64)
    cap = np.empty(2 * n, dtype=np.int64)
    top = 0
    for v in range(n):
        for side in range(2):
            s = 2 * v + side
            k = offsets[v + 1] - offsets[v] if side == 0 else indeg[v]
            start[s] = top
            cap[s] = k + 2 + (k >> 1)
            top += cap[s]
    size = 2 * top + 1024
    nbr = np.empty(size, dtype=np.int32)
    wt = np.empty(size, dtype=np.float64)
    arc = np.empty(size, dtype=np.int64)
    hops = np.empty(size, dtype=np.int32)
    for u in range(n):                          # out-lists, cheapest parallel edge
        b = start[2 * u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            c = weights[e]
            if v == u or not c < INF:
                continue
            hit = -1
            for i in range(b, b + deg[2 * u]):
                if nbr[i] == v:
                    hit = i
                    break
            if hit >= 0:
                if c < wt[hit]:
                    wt[hit] = c
                    arc[hit] = e
                continue
            i = b + deg[2 * u]
            nbr[i] = v
            wt[i] = c
            arc[i] = e
            hops[i] = 1
            deg[2 * u] += 1
    for u in range(n):                          # in-lists mirror them
        b = start[2 * u]
        for i in range(b, b + deg[2 * u]):
            v = nbr[i]
            j = start[2 * v + 1] + deg[2 * v + 1]
            nbr[j] = u
            wt[j] = wt[i]
            arc[j] = arc[i]
            hops[j] = 1
            deg[2 * v + 1] += 1
    return Pool(start, deg, cap, nbr, wt, arc, hops), top


@njit(cache=True, nogil=True, inline="always")
def _near(u, v, maxd, block, bgen, start, deg, nbr, wt, dist, stamp, gen):
    """The cost of the cheapest path of one or two edges from ``u`` to
    every node it reaches within ``maxd`` avoiding ``v`` and the nodes with
    ``block[x] == bgen``, in ``dist`` where ``stamp == gen``: no heap, the
    one-edge paths, then the two-edge ones."""
    b = start[2 * u]
    e = b + deg[2 * u]
    for j in range(b, e):
        x = nbr[j]
        d1 = wt[j]
        if x == v or d1 > maxd or block[x] == bgen:
            continue
        if stamp[x] != gen or d1 < dist[x]:
            dist[x] = d1
            stamp[x] = gen
    for j in range(b, e):
        x = nbr[j]
        d1 = wt[j]
        if x == v or d1 > maxd or block[x] == bgen:
            continue
        bx = start[2 * x]
        for k in range(bx, bx + deg[2 * x]):
            y = nbr[k]
            nd = d1 + wt[k]
            if y == v or nd > maxd or block[y] == bgen:
                continue
            if stamp[y] != gen or nd < dist[y]:
                dist[y] = nd
                stamp[y] = gen


@njit(cache=True, nogil=True, inline="always")
def _near_witness(w, v, via, block, bgen, start, deg, nbr, wt, dist, stamp, gen):
    """Whether a path of at most three edges, no longer than ``via``, runs
    to ``w`` (the first two as :func:`_near` left them in ``dist``; the
    third one of ``w``'s in-edges, not from ``v`` or a blocked node)."""
    if stamp[w] == gen and dist[w] <= via:
        return True
    b = start[2 * w + 1]
    for k in range(b, b + deg[2 * w + 1]):
        y = nbr[k]
        if y != v and stamp[y] == gen and dist[y] + wt[k] <= via and block[y] != bgen:
            return True
    return False


# not shared with _contract.witness: one inline kernel for both (list stride
# and block check as arguments) built Monaco in 10.9 ms instead of 7.2 ms
@njit(cache=True, nogil=True, inline='always')
def _witness(src, skip, block, bgen, maxd, limit, start, deg, nbr, wt, dist, stamp,
             gen, hk, hn, tmark, ntargets):
    """Bounded Dijkstra from ``src`` over out-lists, never entering ``skip``
    or a node with ``block[x] == bgen``: stops past ``maxd``, after
    ``limit`` settled nodes, or once the ``ntargets`` nodes with
    ``tmark[x] == gen`` are settled. ``dist[x]`` is valid where
    ``stamp[x] == gen``."""
    dist[src] = 0.0
    stamp[src] = gen
    hk[0] = 0.0
    hn[0] = src
    size = 1
    settled = 0
    hcap = hk.shape[0]
    while size > 0:
        d, x, size = lazy_take(hk, hn, size)
        if d > dist[x]:
            continue                           # stale entry
        if d > maxd:
            return
        settled += 1
        if tmark[x] == gen:
            ntargets -= 1
            if ntargets == 0:
                return
        if settled >= limit:
            return
        b = start[2 * x]
        for j in range(b, b + deg[2 * x]):
            y = nbr[j]
            if y == skip or block[y] == bgen:
                continue
            nd = d + wt[j]
            if nd > maxd:
                continue
            if stamp[y] != gen or nd < dist[y]:
                if size >= hcap:
                    return                     # out of room: fewer witnesses, more shortcuts
                dist[y] = nd
                stamp[y] = gen
                # push
                i = size
                while i > 0:
                    p = (i - 1) >> 1
                    if hk[p] <= nd:
                        break
                    hk[i] = hk[p]
                    hn[i] = hn[p]
                    i = p
                hk[i] = nd
                hn[i] = y
                size += 1


@njit(cache=True, nogil=True, inline='always')
def _simulate(v, limit, block, bgen, start, deg, nbr, wt, hops, dist, stamp, tmark, gens,
              row, hk, hn, need, nbase):
    """Witness searches for contracting ``v``: marks ``need[nbase + i * b +
    j]`` for in-edge ``i`` and out-edge ``j`` (b out-edges) when the
    shortcut is needed (if ``need`` is non-empty). Returns ``(added,
    added hops)``."""
    bi = start[2 * v + 1]
    di = deg[2 * v + 1]
    bo = start[2 * v]
    do = deg[2 * v]
    added = 0
    added_hops = 0
    write = need.shape[0] > 0
    for i in range(di):
        u = nbr[bi + i]
        wu = wt[bi + i]
        # written out, not _next_gen: with it Monaco built 5-10% slower
        if gens[row] >= _GEN_MAX:
            stamp[row, :] = 0
            tmark[row, :] = 0
            gens[row] = 0
        gens[row] += 1
        gen = gens[row]
        wmax = -1.0
        nt = 0
        for j in range(do):
            w = nbr[bo + j]
            if w == u:
                continue
            tmark[row, w] = gen
            nt += 1
            if wt[bo + j] > wmax:
                wmax = wt[bo + j]
        if nt > 0:
            _witness(u, v, block, bgen, wu + wmax, limit, start, deg, nbr, wt, dist[row],
                     stamp[row], gen, hk[row], hn[row], tmark[row], nt)
        for j in range(do):
            w = nbr[bo + j]
            flag = False
            if w != u:
                via = wu + wt[bo + j]
                # a witness as long as the path through v replaces the shortcut,
                # as RoutingKit's does: it keeps the distance. Demanding a strictly
                # shorter one added a shortcut per tie, and hop-weight grids are
                # all ties (20k-node city: 2x the arcs, 100x the build time).
                # Float sums in another order may differ in the last bit, so a
                # path may come out that many ulps long; integer weights are exact.
                if not (stamp[row, w] == gen and dist[row, w] <= via):
                    flag = True
                    added += 1
                    added_hops += hops[bi + i] + hops[bo + j]
            if write:
                need[nbase + i * do + j] = flag
    return added, added_hops


@njit(cache=True, nogil=True, inline='always')
def _priority(v, added, added_hops, level, start, deg, hops):
    """The priority of contracting ``v`` (RoutingKit's, with the edge
    difference weighted 2x: 3% fewer shortcuts, 7% faster queries on the
    20k road-like graph)."""
    removed = deg[2 * v] + deg[2 * v + 1]
    if removed == 0:
        return float(level[v])
    removed_hops = 0
    for side in range(2):
        b = start[2 * v + side]
        for i in range(b, b + deg[2 * v + side]):
            removed_hops += hops[i]
    return level[v] + 2.0 * added / removed + added_hops / max(removed_hops, 1)


@njit(cache=True, nogil=True, inline='always')
def _estimate(v, block, start, deg, nbr, wt, hops, dist, stamp, tmark, gens, row):
    """``(added, added hops)`` of contracting ``v`` with witnesses looked
    for among the paths of at most three edges (:func:`_near`,
    :func:`_near_witness`): on a 20k-node hop-weight city the build took
    0.37 s instead of 0.87 s with bounded Dijkstras of 30 settled nodes,
    with 1% more shortcuts and as many nodes settled a query."""
    bi = start[2 * v + 1]
    di = deg[2 * v + 1]
    bo = start[2 * v]
    do = deg[2 * v]
    added = 0
    added_hops = 0
    for i in range(di):
        u = nbr[bi + i]
        wu = wt[bi + i]
        wmax = -1.0
        for j in range(do):
            if nbr[bo + j] != u and wt[bo + j] > wmax:
                wmax = wt[bo + j]
        if wmax < 0.0:
            continue
        if gens[row] >= _GEN_MAX:         # the contraction's searches share the counter
            stamp[row, :] = 0
            tmark[row, :] = 0
            gens[row] = 0
        gens[row] += 1
        gen = gens[row]
        _near(u, v, wu + wmax, block, -1, start, deg, nbr, wt, dist[row], stamp[row], gen)
        for j in range(do):
            w = nbr[bo + j]
            if w != u and not _near_witness(w, v, wu + wt[bo + j], block, -1, start,
                                            deg, nbr, wt, dist[row], stamp[row], gen):
                added += 1
                added_hops += hops[bi + i] + hops[bo + j]
    return added, added_hops


@njit(cache=True, nogil=True, inline='always')
def _reprioritize_one(v, sim_limit, block, level, prio, start, deg, nbr, wt, hops, dist,
                      stamp, tmark, gens, hk, hn, nothing):
    """Simulate ``v`` again into ``prio[v]`` (scratch row of this thread;
    ``nothing``: an empty ``need``, made once per round, not per node)."""
    if sim_limit == 0:
        added, added_hops = _estimate(v, block, start, deg, nbr, wt, hops, dist, stamp, tmark,
                                      gens, get_thread_id())
    else:
        added, added_hops = _simulate(v, sim_limit, block, -1, start, deg, nbr, wt, hops,
                                      dist, stamp, tmark, gens, get_thread_id(), hk, hn,
                                      nothing, 0)
    prio[v] = _priority(v, added, added_hops, level, start, deg, hops)


# The helpers that run per node or per search (_reprioritize_one, _simulate,
# _witness, _priority, _make_room) take separate arrays, unpacked from the
# groups once per round: an array read out of a tuple takes a reference (an
# atomic increment and decrement), and with the groups passed down to them
# Monaco contracted in 9.8 ms instead of 7.8 ms (2026-11-28). They, and the
# per-node helpers of the selection and the shortcut loop, are inlined
# (inline='always'): a call to a compiled helper takes a reference to each
# array argument on the way in and drops it on the way out, two atomic
# operations an array a call; inlined, the rounds of Monaco took 5.4 ms
# instead of 8.3 ms (9,000 estimates of 17 arrays each).
@njit(cache=True, nogil=True, parallel=True)
def _reprioritize_par(ndirty, sim_limit, st, pool, rows):
    """Simulate the ``st.dirty`` nodes again, in parallel."""
    nothing = np.zeros(0, dtype=np.bool_)
    dirty, block, level, prio = st.dirty, st.block, st.level, st.prio
    start, deg, nbr, wt, hops = pool.start, pool.deg, pool.nbr, pool.wt, pool.hops
    dist, stamp, tmark, gens, hk, hn = rows
    for k in prange(ndirty):
        _reprioritize_one(dirty[k], sim_limit, block, level, prio, start, deg, nbr, wt, hops,
                          dist, stamp, tmark, gens, hk, hn, nothing)


@njit(cache=True, nogil=True)
def _reprioritize(ndirty, sim_limit, st, pool, rows, one):
    """Simulate the first ``ndirty`` of ``st.dirty`` again into ``st.prio``
    (:class:`Rounds`): few of them on this thread, since waking the pool
    costs more than it saves (and on a busy machine, milliseconds a round).
    ``one``: numba runs on one thread, so the parallel kernel runs its loop
    on this thread, and it is the faster: compiled as a parallel loop its
    body may assume that its arrays do not overlap (on Monaco 511 estimates
    took 52 us that way, 215 us as this function's plain loop)."""
    if ndirty >= _PAR_MIN or one:
        _reprioritize_par(ndirty, sim_limit, st, pool, rows)
        return
    nothing = np.zeros(0, dtype=np.bool_)
    dirty, block, level, prio = st.dirty, st.block, st.level, st.prio
    start, deg, nbr, wt, hops = pool.start, pool.deg, pool.nbr, pool.wt, pool.hops
    dist, stamp, tmark, gens, hk, hn = rows
    for k in range(ndirty):
        _reprioritize_one(dirty[k], sim_limit, block, level, prio, start, deg, nbr, wt, hops,
                          dist, stamp, tmark, gens, hk, hn, nothing)


@njit(cache=True, nogil=True, inline='always')
def _less(a, b, prio):
    """Strict order of nodes by priority, ties by a hash of the id."""
    if prio[a] != prio[b]:
        return prio[a] < prio[b]
    ha = (np.int64(a) * np.int64(2654435761)) & 0xFFFFFFFF
    hb = (np.int64(b) * np.int64(2654435761)) & 0xFFFFFFFF
    if ha != hb:
        return ha < hb
    return a < b


@njit(cache=True, nogil=True, inline='always')
def _smallest_near(v, prio, start, deg, nbr):
    """The smallest of ``v`` and its neighbours (either direction)."""
    m = v
    for side in range(2):
        b = start[2 * v + side]
        for i in range(b, b + deg[2 * v + side]):
            y = nbr[i]
            if _less(y, m, prio):
                m = y
    return m


@njit(cache=True, nogil=True, inline='always')
def _best_of_all(v, start, deg, nbr, best):
    """Whether ``v`` is the smallest near itself and near each neighbour."""
    if best[v] != v:
        return False
    for side in range(2):
        b = start[2 * v + side]
        for i in range(b, b + deg[2 * v + side]):
            if best[nbr[i]] != v:
                return False
    return True


@njit(cache=True, nogil=True, parallel=True)
def _select_par(alive, nalive, prio, start, deg, nbr, best, chosen):
    """:func:`_select` in parallel."""
    for k in prange(nalive):
        best[alive[k]] = _smallest_near(alive[k], prio, start, deg, nbr)
    for k in prange(nalive):
        chosen[k] = _best_of_all(alive[k], start, deg, nbr, best)


@njit(cache=True, nogil=True)
def _select(alive, nalive, prio, start, deg, nbr, best, chosen, one):
    """Mark in ``chosen`` the nodes of ``alive[:nalive]`` that are the
    smallest within two hops: ``best[x]`` is first the smallest of ``x``
    and its neighbours, then ``v`` is chosen if it is ``best`` of itself
    and of every neighbour (``one``: as in :func:`_reprioritize`)."""
    if nalive >= 16 * _PAR_MIN or one:
        _select_par(alive, nalive, prio, start, deg, nbr, best, chosen)
        return
    for k in range(nalive):
        best[alive[k]] = _smallest_near(alive[k], prio, start, deg, nbr)
    for k in range(nalive):
        chosen[k] = _best_of_all(alive[k], start, deg, nbr, best)


@njit(cache=True, nogil=True, parallel=True)
def _round_witness_par(batch, nb, nbase, limit, block, bgen, pool, rows, need):
    """:func:`_round_witness` in parallel."""
    start, deg, nbr, wt, hops = pool.start, pool.deg, pool.nbr, pool.wt, pool.hops
    dist, stamp, tmark, gens, hk, hn = rows
    for k in prange(nb):
        _simulate(batch[k], limit, block, bgen, start, deg, nbr, wt, hops, dist, stamp,
                  tmark, gens, get_thread_id(), hk, hn, need, nbase[k])


@njit(cache=True, nogil=True)
def _round_witness(batch, nb, nbase, limit, block, bgen, pool, rows, need, one):
    """The witness searches of one round's nodes (in parallel if many;
    ``one``: as in :func:`_reprioritize`)."""
    if nb >= _PAR_MIN or one:
        _round_witness_par(batch, nb, nbase, limit, block, bgen, pool, rows, need)
        return
    start, deg, nbr, wt, hops = pool.start, pool.deg, pool.nbr, pool.wt, pool.hops
    dist, stamp, tmark, gens, hk, hn = rows
    for k in range(nb):
        _simulate(batch[k], limit, block, bgen, start, deg, nbr, wt, hops, dist, stamp,
                  tmark, gens, 0, hk, hn, need, nbase[k])


@njit(cache=True, nogil=True, inline='always')
def _find(start, deg, nbr, s, x):
    """Position of ``x`` in list ``s``, -1 if absent."""
    b = start[s]
    for i in range(b, b + deg[s]):
        if nbr[i] == x:
            return i
    return -1


@njit(cache=True, nogil=True, inline='always')
def _remove(start, deg, nbr, wt, arc, hops, s, x):
    """Drop ``x`` from list ``s`` (swap with the last entry)."""
    b = start[s]
    last = b + deg[s] - 1
    for i in range(b, last + 1):
        if nbr[i] == x:
            nbr[i] = nbr[last]
            wt[i] = wt[last]
            arc[i] = arc[last]
            hops[i] = hops[last]
            deg[s] -= 1
            return


@njit(cache=True, nogil=True, inline='always')
def _make_room(s, extra, start, deg, cap, nbr, wt, arc, hops, top):
    """Move list ``s`` to the end of the pool with room for ``extra`` more
    entries if it is full; the pool grows when needed. Returns the
    (possibly new) pool arrays and top."""
    if deg[s] + extra <= cap[s]:
        return nbr, wt, arc, hops, top
    newcap = 2 * cap[s] + extra + 2
    if top + newcap > nbr.shape[0]:
        size = max(2 * nbr.shape[0], top + newcap)
        nbr = grown(nbr, size, top)
        wt = grown(wt, size, top)
        arc = grown(arc, size, top)
        hops = grown(hops, size, top)
    b = start[s]
    for i in range(deg[s]):
        nbr[top + i] = nbr[b + i]
        wt[top + i] = wt[b + i]
        arc[top + i] = arc[b + i]
        hops[top + i] = hops[b + i]
    start[s] = top
    cap[s] = newcap
    top += newcap
    return nbr, wt, arc, hops, top


@njit(cache=True, nogil=True)
def build_rounds(until, m, limit, sim_limit, pool, ints, st, rows, sc_c1, sc_c2):
    """Contract rounds until ``until`` nodes are done (or all are):
    ``pool`` a :class:`Pool`, ``st`` the :class:`Rounds`, ``rows`` the
    :class:`WitnessRows`; ``limit`` the settled nodes of a contraction's
    witness search, ``sim_limit`` those of an estimate's (0: paths of at
    most three edges, :func:`_estimate`).

    ``ints``: ``[top, nalive, done, shortcuts, rounds, ndirty, witness
    generation, numba's thread count]``. ``st.order[r]`` is the node of rank ``r``. Returns what
    may have grown: ``(pool, sc_c1, sc_c2)``.
    """
    start, deg, cap, nbr, wt, arc, hops = pool
    level, rank, order, alive, block, dmark, dirty, best, chosen = (
        st.level, st.rank, st.order, st.alive, st.block, st.dmark, st.dirty, st.best,
        st.chosen)
    top = ints[0]
    nalive = ints[1]
    done = ints[2]
    nsc = ints[3]
    ndirty = ints[5]
    one = ints[7] == 1
    while done < until and nalive > 0:
        ints[4] += 1
        # the neighbours of the last round's nodes got new edges
        # the entry arrays may have grown last round
        pool = Pool(start, deg, cap, nbr, wt, arc, hops)
        _reprioritize(ndirty, sim_limit, st, pool, rows, one)
        ndirty = 0
        _select(alive, nalive, st.prio, start, deg, nbr, best, chosen, one)
        nb = 0
        keep = 0
        for k in range(nalive):               # the batch to the front, the rest after
            if chosen[k]:
                dirty[nb] = alive[k]          # dirty is free until the round ends
                nb += 1
            else:
                alive[keep] = alive[k]
                keep += 1
        batch = dirty[:nb].copy()
        nalive = keep
        ints[6] += 1
        bgen = ints[6]
        nbase = np.empty(nb + 1, dtype=np.int64)
        nbase[0] = 0
        for k in range(nb):
            v = batch[k]
            block[v] = bgen
            nbase[k + 1] = nbase[k] + deg[2 * v] * deg[2 * v + 1]
        need = np.empty(nbase[nb], dtype=np.bool_)
        _round_witness(batch, nb, nbase, limit, block, bgen, pool, rows, need, one)
        # shortcuts, one node after the other
        for k in range(nb):
            v = batch[k]
            rank[v] = done
            order[done] = v
            done += 1
            bi = start[2 * v + 1]
            di = deg[2 * v + 1]
            bo = start[2 * v]
            do = deg[2 * v]
            for i in range(di):
                for j in range(do):
                    if not need[nbase[k] + i * do + j]:
                        continue
                    # the lists of v never move: v's neighbours change, not v
                    u = nbr[bi + i]
                    w = nbr[bo + j]
                    via = wt[bi + i] + wt[bo + j]
                    h = hops[bi + i] + hops[bo + j]
                    a = m + nsc
                    hit = _find(start, deg, nbr, 2 * u, w)
                    if hit >= 0:
                        if not via < wt[hit]:
                            continue
                        hit2 = _find(start, deg, nbr, 2 * w + 1, u)
                        wt[hit] = via
                        arc[hit] = a
                        hops[hit] = h
                        wt[hit2] = via
                        arc[hit2] = a
                        hops[hit2] = h
                    else:
                        nbr, wt, arc, hops, top = _make_room(2 * u, 1, start, deg, cap, nbr,
                                                             wt, arc, hops, top)
                        nbr, wt, arc, hops, top = _make_room(2 * w + 1, 1, start, deg, cap,
                                                             nbr, wt, arc, hops, top)
                        bi = start[2 * v + 1]   # the pool may have been copied, not moved
                        bo = start[2 * v]
                        for s, x in ((2 * u, w), (2 * w + 1, u)):
                            p = start[s] + deg[s]
                            nbr[p] = x
                            wt[p] = via
                            arc[p] = a
                            hops[p] = h
                            deg[s] += 1
                    if nsc >= sc_c1.shape[0]:
                        sc_c1 = grown(sc_c1, 2 * sc_c1.shape[0] + 16, nsc)
                        sc_c2 = grown(sc_c2, 2 * sc_c2.shape[0] + 16, nsc)
                    sc_c1[nsc] = arc[bi + i]
                    sc_c2[nsc] = arc[bo + j]
                    nsc += 1
            # the neighbours forget v, rise a level and are simulated again
            for side in range(2):
                b = start[2 * v + side]
                for i in range(b, b + deg[2 * v + side]):
                    y = nbr[i]
                    _remove(start, deg, nbr, wt, arc, hops, 2 * y + 1 - side, v)
                    if level[v] + 1 > level[y]:
                        level[y] = level[v] + 1
                    if dmark[y] != bgen:        # first time this round: dirty
                        dmark[y] = bgen
                        dirty[ndirty] = y
                        ndirty += 1
    ints[0] = top
    ints[1] = nalive
    ints[2] = done
    ints[3] = nsc
    ints[5] = ndirty
    return Pool(start, deg, cap, nbr, wt, arc, hops), sc_c1, sc_c2


@njit(cache=True, nogil=True)
def build_prepare(n, threads):
    """The state of the rounds and the witness searches' scratch rows:
    ``(Rounds, WitnessRows)`` (every node is dirty, so the first round
    computes every priority)."""
    level = np.zeros(n, dtype=np.int64)
    prio = np.empty(n, dtype=np.float64)
    rank = np.full(n, -1, dtype=np.int32)
    order = np.empty(n, dtype=np.int32)
    alive = np.arange(n).astype(np.int32)
    # block: the round's generation on its nodes; dmark: on the nodes made dirty
    block = np.zeros(n, dtype=np.int64)
    dmark = np.zeros(n, dtype=np.int64)
    dirty = np.arange(n).astype(np.int32)      # the first round simulates them all
    best = np.empty(n, dtype=np.int32)
    chosen = np.empty(n, dtype=np.bool_)
    dist = np.empty((threads, n), dtype=np.float64)
    stamp = np.zeros((threads, n), dtype=np.int32)
    tmark = np.zeros((threads, n), dtype=np.int32)
    gens = np.zeros(threads, dtype=np.int32)
    hk = np.empty((threads, 4096), dtype=np.float64)
    hn = np.empty((threads, 4096), dtype=np.int32)
    return (Rounds(level, prio, rank, order, alive, block, dmark, dirty, best, chosen),
            WitnessRows(dist, stamp, tmark, gens, hk, hn))


class UpwardGraph(NamedTuple):
    """One upward graph of a hierarchy: CSR over ranks (``first``), the
    heads' ranks, the weights and the arc each edge stands for."""
    first: np.ndarray
    head: np.ndarray
    w: np.ndarray
    arc: np.ndarray


@njit(cache=True, nogil=True)
def finalize(order, rank, pool, sc_c1, sc_c2, nsc):
    """The two upward graphs as CSR over ranks: ``(forward, backward,
    sc_c1, sc_c2)``, both :class:`UpwardGraph`."""
    start, deg, nbr, wt, arc = pool.start, pool.deg, pool.nbr, pool.wt, pool.arc
    n = order.shape[0]
    out = []
    for side in range(2):
        first = np.zeros(n + 1, dtype=np.int64)
        for r in range(n):
            first[r + 1] = first[r] + deg[2 * order[r] + side]
        k = first[n]
        head = np.empty(k, dtype=np.int32)
        w = np.empty(k, dtype=np.float64)
        a = np.empty(k, dtype=np.int64)
        for r in range(n):
            s = 2 * order[r] + side
            b = start[s]
            p = first[r]
            for i in range(deg[s]):
                head[p + i] = rank[nbr[b + i]]
                w[p + i] = wt[b + i]
                a[p + i] = arc[b + i]
        out.append(UpwardGraph(first, head, w, a))
    return out[0], out[1], sc_c1[:nsc].copy(), sc_c2[:nsc].copy()


@njit(cache=True, nogil=True)
def nesting_depth(sc_c1, sc_c2, m):
    """The deepest nesting of shortcuts (0: none); children are older than
    their shortcut, so one pass suffices."""
    nsc = sc_c1.shape[0]
    depth = np.zeros(nsc, dtype=np.int32)
    deepest = 0
    for k in range(nsc):
        d1 = depth[sc_c1[k] - m] if sc_c1[k] >= m else 0
        d2 = depth[sc_c2[k] - m] if sc_c2[k] >= m else 0
        depth[k] = 1 + max(d1, d2)
        deepest = max(deepest, depth[k])
    return deepest


@njit(cache=True, nogil=True)
def shortcuts_in_unpacking_order(m, sc_c1, sc_c2, fa, ba):
    """The shortcuts renumbered so that each one's tree comes right before
    it, its second child's subtree then its first child's (post-order from
    the upward arcs ``fa`` then ``ba``, a child met again keeping its
    first number): ``(sc_c1, sc_c2, fa, ba)`` anew. Unpacking walks a
    shortcut, then its first child, then that child's first child...: in
    this order one run of the arrays, read downwards.

    The build numbers shortcuts as it makes them, round by round, so
    unpacking one jumps between rounds made far apart and misses the
    caches at almost every shortcut: on a 250k-node city a 320-edge
    route's kernel took 129 us, 111 us in this order (children shared by
    many trees still sit in the tree that met them first). Children still
    come before their shortcut (an older number), so every one-pass walk
    over the shortcuts stays valid."""
    nsc = sc_c1.shape[0]
    new = np.full(nsc, -1, dtype=np.int64)          # old shortcut -> new
    # (shortcut, children pushed) pairs: at most two a level of nesting
    stack = np.empty(4 * nsc + 4, dtype=np.int64)
    nxt = 0
    for side in range(2):
        arcs = fa if side == 0 else ba
        for i in range(arcs.shape[0]):
            root = arcs[i] - m
            if root < 0 or new[root] >= 0:
                continue
            stack[0] = root
            stack[1] = 0
            top = 2
            while top > 0:
                x = stack[top - 2]
                if stack[top - 1] == 0:              # first visit: children first
                    stack[top - 1] = 1
                    c1 = sc_c1[x] - m
                    c2 = sc_c2[x] - m
                    if c1 >= 0 and new[c1] < 0:
                        stack[top] = c1
                        stack[top + 1] = 0
                        top += 2
                    if c2 >= 0 and new[c2] < 0 and c2 != c1:
                        stack[top] = c2                  # on top: numbered first
                        stack[top + 1] = 0
                        top += 2
                    continue
                top -= 2
                if new[x] < 0:                       # (reached twice while pending)
                    new[x] = nxt
                    nxt += 1
    for x in range(nsc):                             # on no arc and in no tree
        if new[x] < 0:
            new[x] = nxt
            nxt += 1
    c1 = np.empty(nsc, dtype=np.int64)
    c2 = np.empty(nsc, dtype=np.int64)
    c1[new] = _renumbered(sc_c1, m, new)
    c2[new] = _renumbered(sc_c2, m, new)
    return c1, c2, _renumbered(fa, m, new), _renumbered(ba, m, new)


@njit(cache=True, nogil=True, inline="always")
def _renumbered(arcs, m, new):
    """``arcs`` with each shortcut ``m + x`` as ``m + new[x]`` (input
    edges, below ``m``, as they are)."""
    out = np.empty_like(arcs)
    for i in range(arcs.shape[0]):
        out[i] = arcs[i] if arcs[i] < m else m + new[arcs[i] - m]
    return out


# -- queries --------------------------------------------------------------------

class SearchRows(NamedTuple):
    """Per-thread scratch rows of the bidirectional searches of many pairs
    (labels, stamps, reaching edges, heaps, generations)."""
    df: np.ndarray
    db: np.ndarray
    sf: np.ndarray
    sb: np.ndarray
    pf: np.ndarray
    pb: np.ndarray
    hkf: np.ndarray
    hnf: np.ndarray
    hkb: np.ndarray
    hnb: np.ndarray
    gens: np.ndarray
    hpf: np.ndarray
    hpb: np.ndarray


@njit(cache=True, nogil=True)
def bidir(ff, fh, fw, bf, bh, bw, s, t, df, db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb, hpb,
          gen):
    """Bidirectional upward Dijkstra from rank ``s`` (forward graph ``ff``/
    ``fh``/``fw``) and rank ``t`` (backward graph), stall-on-demand: a node
    reached from above at no more than its label is not expanded
    (RoutingKit's rule: an equal label through a higher node leaves a path
    of the same cost through that node; on hop-weight graphs, full of
    ties, stalling on equal labels settles 30% fewer nodes than stalling
    on cheaper ones only; tie-heavy random graphs check it all pairs
    against Dijkstra). Labels
    ``df``/``db`` are valid where the stamps equal ``gen``; ``pf``/``pb`` is
    the edge position that reached a node (-1 at the ends). Each side's
    queue is an indexed 4-ary heap (keys ``hkf``, nodes ``hnf``, a node's
    slot ``hpf``) whose keys are lowered in place: on a 250k-node city a
    query popped 441 entries instead of the 668 of a heap that keeps every
    label pushed, in 0.7x the time.
    :func:`bidir_steps` runs the same search a budget of settled nodes at
    a time.

    Returns ``(distance, meeting rank, settled)``: meeting rank -1
    unreachable, -2 a heap ran out of room (the caller grows them and asks
    again); ``settled`` counts the nodes expanded (not stalled)."""
    _start(s, t, df, db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb, hpb, gen)
    if s == t:
        return 0.0, s, 0
    state, _, _, best, meet, settled = _bidir_run(ff, fh, fw, bf, bh, bw, df, db, sf, sb, pf,
                                                  pb, hkf, hnf, hpf, hkb, hnb, hpb, gen, 1, 1,
                                                  INF, -1, 0, _UNLIMITED)
    if state == -2:
        return INF, -2, settled
    return best, meet, settled


#: :func:`bidir_steps`' meeting rank while the search is paused
PAUSED = -3
#: :func:`bidir_steps`' int64 registers (heap sizes; nodes settled, -1:
#: the next call begins a search) and float64 ones (the best meeting cost)
R_N0, R_N1, R_MEET, R_SETTLED = 0, 1, 2, 3
REGISTERS = 4
_UNLIMITED = 1 << 62


@njit(cache=True, nogil=True)
def bidir_steps(ff, fh, fw, bf, bh, bw, s, t, df, db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb,
                hpb, gen, regs, best_reg, budget):
    """:func:`bidir` settling at most ``budget`` nodes a call: meeting rank
    ``PAUSED`` until it is finished, then :func:`bidir`'s answer. A search
    begins when ``regs[R_SETTLED] == -1`` and a finished one sets it back;
    later calls with the same arrays, ``gen`` and registers (``regs``,
    ``best_reg``: one float64) carry on where it stopped."""
    settled = regs[R_SETTLED]
    if settled < 0:
        _start(s, t, df, db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb, hpb, gen)
        if s == t:
            return 0.0, s, 0
        n0 = 1
        n1 = 1
        best = INF
        meet = -1
        settled = 0
    else:
        n0 = regs[R_N0]
        n1 = regs[R_N1]
        best = best_reg[0]
        meet = regs[R_MEET]
    state, n0, n1, best, meet, settled = _bidir_run(ff, fh, fw, bf, bh, bw, df, db, sf, sb,
                                                    pf, pb, hkf, hnf, hpf, hkb, hnb, hpb, gen,
                                                    n0, n1, best, meet, settled,
                                                    settled + budget)
    if state == 1:
        regs[R_N0] = n0
        regs[R_N1] = n1
        regs[R_MEET] = meet
        regs[R_SETTLED] = settled
        best_reg[0] = best
        return INF, PAUSED, settled
    regs[R_SETTLED] = -1
    if state == -2:
        return INF, -2, settled
    return best, meet, settled


@njit(cache=True, nogil=True, inline="always")
def _start(s, t, df, db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb, hpb, gen):
    """Label the two roots and put them in their heaps."""
    df[s] = 0.0
    sf[s] = gen
    pf[s] = -1
    db[t] = 0.0
    sb[t] = gen
    pb[t] = -1
    heap4_place(hnf, hkf, hpf, 0, s, 0.0)
    heap4_place(hnb, hkb, hpb, 0, t, 0.0)


@njit(cache=True, nogil=True, inline="always")
def _bidir_run(ff, fh, fw, bf, bh, bw, df, db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb, hpb,
               gen, n0, n1, best, meet, settled, stop):
    """The search loop of :func:`bidir` from heap sizes ``n0``/``n1``, the
    best meeting so far and ``settled`` nodes, until it is finished or
    ``stop`` nodes are settled: ``(state, n0, n1, best, meet, settled)``,
    state 0 finished, 1 paused, -2 a heap ran out of room."""
    cap = hkf.shape[0]
    # the two halves stay written out: one inline step function for both
    # made Monaco queries 2.3-3.6x slower (5.3 -> 12 us, 2026-11-28)
    while True:
        k0 = hkf[0] if n0 > 0 else INF
        k1 = hkb[0] if n1 > 0 else INF
        if k0 >= best and k1 >= best:
            break
        if settled >= stop:
            return 1, n0, n1, best, meet, settled
        if k0 <= k1:
            d = k0
            x, n0 = heap4_pop(hnf, hkf, hpf, n0)
            if sb[x] == gen and d + db[x] < best:
                best = d + db[x]
                meet = x
            stalled = False
            for e in range(bf[x], bf[x + 1]):      # y -> x from above
                y = bh[e]
                if sf[y] == gen and df[y] + bw[e] <= d:
                    stalled = True
                    break
            if stalled:
                continue
            settled += 1
            for e in range(ff[x], ff[x + 1]):
                y = fh[e]
                nd = d + fw[e]
                if sf[y] != gen:
                    if n0 >= cap:
                        return -2, n0, n1, best, meet, settled
                    df[y] = nd
                    sf[y] = gen
                    pf[y] = e
                    heap4_place(hnf, hkf, hpf, n0, y, nd)
                    n0 += 1
                elif nd < df[y]:               # still queued: a popped label is final
                    df[y] = nd
                    pf[y] = e
                    heap4_place(hnf, hkf, hpf, hpf[y], y, nd)
        else:
            d = k1
            x, n1 = heap4_pop(hnb, hkb, hpb, n1)
            if sf[x] == gen and d + df[x] < best:
                best = d + df[x]
                meet = x
            stalled = False
            for e in range(ff[x], ff[x + 1]):      # x -> y to above
                y = fh[e]
                if sb[y] == gen and db[y] + fw[e] <= d:
                    stalled = True
                    break
            if stalled:
                continue
            settled += 1
            for e in range(bf[x], bf[x + 1]):
                y = bh[e]
                nd = d + bw[e]
                if sb[y] != gen:
                    if n1 >= cap:
                        return -2, n0, n1, best, meet, settled
                    db[y] = nd
                    sb[y] = gen
                    pb[y] = e
                    heap4_place(hnb, hkb, hpb, n1, y, nd)
                    n1 += 1
                elif nd < db[y]:
                    db[y] = nd
                    pb[y] = e
                    heap4_place(hnb, hkb, hpb, hpb[y], y, nd)
    return 0, n0, n1, best, meet, settled


@njit(cache=True, nogil=True)
def _expand(a, m, sc_c1, sc_c2, stack, out, p):
    """Write the input edges of arc ``a`` in walking order into ``out``
    from ``p`` (only counts when ``out`` is empty); returns the new ``p``."""
    stack[0] = a
    top = 1
    write = out.shape[0] > 0
    while top > 0:
        top -= 1
        x = stack[top]
        if x < m:
            if write:
                out[p] = x
            p += 1
            continue
        stack[top] = sc_c2[x - m]              # u -> v first, so it goes on top
        stack[top + 1] = sc_c1[x - m]
        top += 2
    return p


@njit(cache=True, nogil=True)
def unpack(meet, s, t, ff, fh, fa, bf, bh, ba, pf, pb, m, sc_c1, sc_c2, weights, stack):
    """The input edges of the path found by :func:`bidir` (``s`` up to the
    meeting rank, then down to ``t``) and their weights summed in that
    order: ``(cost, edges)``."""
    # the arcs: forward ones from meet back to s, backward ones meet to t
    nf = 0
    x = meet
    while x != s:
        e = pf[x]
        nf += 1
        # the tail of a forward edge is the rank whose range holds it
        x = _tail(ff, e)
    nb = 0
    x = meet
    while x != t:
        e = pb[x]
        nb += 1
        x = _tail(bf, e)
    arcs = np.empty(nf + nb, dtype=np.int64)
    x = meet
    for i in range(nf - 1, -1, -1):
        e = pf[x]
        arcs[i] = fa[e]
        x = _tail(ff, e)
    x = meet
    for i in range(nf, nf + nb):
        e = pb[x]
        arcs[i] = ba[e]
        x = _tail(bf, e)
    count = 0
    empty = np.empty(0, dtype=np.int64)
    for i in range(arcs.shape[0]):
        count = _expand(arcs[i], m, sc_c1, sc_c2, stack, empty, count)
    edges = np.empty(count, dtype=np.int64)
    p = 0
    for i in range(arcs.shape[0]):
        p = _expand(arcs[i], m, sc_c1, sc_c2, stack, edges, p)
    cost = 0.0
    for i in range(count):
        cost += weights[edges[i]]
    return cost, edges


@njit(cache=True, nogil=True, inline='always')
def _tail(first, e):
    """The rank ``r`` with ``first[r] <= e < first[r + 1]`` (binary search)."""
    lo = 0
    hi = first.shape[0] - 2
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if first[mid] <= e:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True, nogil=True)
def path_query(ff, fh, fw, fa, bf, bh, bw, ba, s, t, df, db, sf, sb, pf, pb, hkf, hnf, hpf,
               hkb, hnb, hpb, gen, m, sc_c1, sc_c2, weights, stack):
    """:func:`bidir` then :func:`unpack`: ``(cost, edges, status,
    settled)``, status 0 found, -1 unreachable, -2 out of heap room."""
    # the arrays stay separate arguments: numba unboxes a NamedTuple of
    # arrays about 1.1 us slower per call than the same arrays passed one
    # by one (two NamedTuples of 11 arrays: 2.4 us against 1.3 us a call,
    # a plain tuple 1.5 us; 2026-11-28), on a query of ~10 us
    best, meet, settled = bidir(ff, fh, fw, bf, bh, bw, s, t, df, db, sf, sb, pf, pb, hkf, hnf,
                                hpf, hkb, hnb, hpb, gen)
    if meet < 0:
        return INF, np.empty(0, dtype=np.int64), meet, settled
    cost, edges = unpack(meet, s, t, ff, fh, fa, bf, bh, ba, pf, pb, m, sc_c1, sc_c2,
                         weights, stack)
    return cost, edges, 0, settled


@njit(cache=True, nogil=True)
def route_edges(li, hd, wl, weights, s, t, dist, stamps, parents, hk, hn, hp, gen, stack):
    """:func:`path_query` (``(cost, edges, status, settled)``) on the
    upward graphs packed (``hierarchy._PACKS``: ``li`` both ``first``
    arrays, both ``arc`` arrays and the children; ``hd`` both heads, then
    both edges' tails, then the input edges each edge stands for; ``wl``
    both weights) and the scratch as two rows, forward then backward: 9
    array arguments instead of 24, since numba unboxes every one on every
    call."""
    best, meet, settled = _packed_search(li, hd, wl, s, t, dist, stamps, parents, hk, hn, hp,
                                         gen)
    if meet < 0:
        return INF, np.empty(0, dtype=np.int64), meet, settled
    arcs, count = _path_arcs(li, hd, parents, meet, s, t)
    m = weights.shape[0]
    nsc = _shortcut_count(li, parents.shape[1])
    sc_c1 = li[li.shape[0] - 2 * nsc:li.shape[0] - nsc]
    sc_c2 = li[li.shape[0] - nsc:]
    edges = np.empty(count, dtype=np.int64)
    p = 0
    for i in range(arcs.shape[0]):
        p = _expand(arcs[i], m, sc_c1, sc_c2, stack, edges, p)
    cost = 0.0
    for i in range(count):                     # weights summed in path order, as unpack
        cost += weights[edges[i]]
    return cost, edges, 0, settled


@njit(cache=True, nogil=True, inline="always")
def _shortcut_count(li, n):
    """The shortcuts in ``li`` (``hierarchy._PACKS``) of ``n`` ranks."""
    nf = li[n]
    nb = li[2 * n + 1]
    return (li.shape[0] - (2 * n + 2 + nf + nb)) >> 1


@njit(cache=True, nogil=True)
def _packed_search(li, hd, wl, s, t, dist, stamps, parents, hk, hn, hp, gen):
    """:func:`bidir` on the packed upward graphs (:func:`route_edges`)
    and the scratch rows: ``(best, meet, settled)``."""
    n = dist.shape[1]
    nf = li[n]
    nb = li[2 * n + 1]
    return bidir(li[:n + 1], hd[:nf], wl[:nf], li[n + 1:2 * n + 2], hd[nf:nf + nb], wl[nf:],
                 s, t, dist[0], dist[1], stamps[0], stamps[1], parents[0], parents[1], hk[0],
                 hn[0], hp[0], hk[1], hn[1], hp[1], gen)


@njit(cache=True, nogil=True)
def _path_arcs(li, hd, parents, meet, s, t):
    """The upward arcs of the path :func:`_packed_search` found, ``s`` up
    to the meeting rank ``meet`` then down to ``t``, and the count of
    input edges they stand for: ``(arcs, count)``. An edge's tail is read
    from the tails after the heads in ``hd``, not searched for in the
    ``first`` arrays as :func:`unpack` does (a binary search per arc,
    twice: 2 of the 13 us of a 21k road query); the input edges per arc,
    read from there too, size the path without walking the shortcuts
    twice."""
    n = parents.shape[1]
    nf = li[n]
    nb = li[2 * n + 1]
    fa = li[2 * n + 2:2 * n + 2 + nf]
    ba = li[2 * n + 2 + nf:2 * n + 2 + nf + nb]
    ftail = hd[nf + nb:2 * nf + nb]
    btail = hd[2 * nf + nb:2 * nf + 2 * nb]
    fhops = hd[2 * nf + 2 * nb:3 * nf + 2 * nb]
    bhops = hd[3 * nf + 2 * nb:]
    pf = parents[0]
    pb = parents[1]
    k = 0
    count = 0
    x = meet
    while x != s:
        k += 1
        count += fhops[pf[x]]
        x = ftail[pf[x]]
    kf = k
    x = meet
    while x != t:
        k += 1
        count += bhops[pb[x]]
        x = btail[pb[x]]
    arcs = np.empty(k, dtype=np.int64)
    x = meet
    for i in range(kf - 1, -1, -1):
        e = pf[x]
        arcs[i] = fa[e]
        x = ftail[e]
    x = meet
    for i in range(kf, k):
        e = pb[x]
        arcs[i] = ba[e]
        x = btail[e]
    return arcs, count


@njit(cache=True, nogil=True)
def route(li, hd, wl, weights, targets, s, t, start, dist, stamps, parents, hk, hn, hp, gen,
          stack):
    """:func:`route_edges` as the path's nodes: ``(cost, nodes, status,
    settled)``, ``nodes`` int32 from node ``start`` (rank ``s``) along the
    input edges (their heads: ``targets``)."""
    cost, edges, status, settled = route_edges(li, hd, wl, weights, s, t, dist, stamps,
                                               parents, hk, hn, hp, gen, stack)
    nodes = np.empty(edges.shape[0] + 1 if status == 0 else 0, dtype=np.int32)
    if status == 0:
        nodes[0] = start
        for i in range(edges.shape[0]):
            nodes[i + 1] = targets[edges[i]]
    return cost, nodes, status, settled


@njit(cache=True, nogil=True)
def route_drawn(li, hd, wl, weights, targets, runs, run_xy, start_xy, dist, stamps, parents,
                hk, hn, hp, stack, s, t, start, gen):
    """:func:`route_edges` as a drawn route, in one call: ``(cost, nodes,
    points, status, settled)``, ``nodes`` int32 from node ``start`` (rank
    ``s``) along the input edges (their heads: ``targets``), ``points``
    ``start_xy[start]`` then the run ``run_xy[runs[e]:runs[e + 1]]`` of
    every edge ``e`` in path order (empty arrays unless status is 0).

    An empty ``runs`` means one point an edge, and ``run_xy`` is then the
    ``(num_edges, 4)`` table of every input edge's weight, point and head
    (:meth:`DirectedHierarchy.drawing`): the shortcuts are unpacked
    straight into the nodes and points, one row read an edge. On a
    250k-node city a route has ~320 edges, and after the search each
    array read at an edge misses the caches: three arrays (weights,
    heads, points) and an edges array between unpacking and drawing cost
    ~90 ns an edge. The arrays come first, the four numbers last: the
    caller keeps the arrays as one tuple and adds the numbers per query."""
    if runs.shape[0] != 0:
        return _route_runs(li, hd, wl, weights, targets, runs, run_xy, start_xy, dist,
                           stamps, parents, hk, hn, hp, stack, s, t, start, gen)
    best, meet, settled = _packed_search(li, hd, wl, s, t, dist, stamps, parents, hk, hn, hp,
                                         gen)
    if meet < 0:
        return INF, np.empty(0, dtype=np.int32), np.empty((0, 2), dtype=np.float64), \
            meet, settled
    arcs, count = _path_arcs(li, hd, parents, meet, s, t)
    nsc = _shortcut_count(li, parents.shape[1])
    sc_c1 = li[li.shape[0] - 2 * nsc:li.shape[0] - nsc]
    sc_c2 = li[li.shape[0] - nsc:]
    m = weights.shape[0]
    nodes = np.empty(count + 1, dtype=np.int32)
    points = np.empty((count + 1, 2), dtype=np.float64)
    nodes[0] = start
    points[0, 0] = start_xy[start, 0]
    points[0, 1] = start_xy[start, 1]
    cost = 0.0
    p = 1
    for i in range(arcs.shape[0]):
        stack[0] = arcs[i]
        top = 1
        while top > 0:
            top -= 1
            a = stack[top]
            if a < m:                          # an input edge: weight, point, head
                cost += run_xy[a, 0]           # summed in path order, as route_edges
                points[p, 0] = run_xy[a, 1]
                points[p, 1] = run_xy[a, 2]
                nodes[p] = np.int32(run_xy[a, 3])
                p += 1
                continue
            stack[top] = sc_c2[a - m]          # u -> v first, so it goes on top
            stack[top + 1] = sc_c1[a - m]
            top += 2
    return cost, nodes, points, 0, settled


@njit(cache=True, nogil=True)
def _route_runs(li, hd, wl, weights, targets, runs, run_xy, start_xy, dist, stamps, parents,
                hk, hn, hp, stack, s, t, start, gen):
    """:func:`route_drawn` for edges drawn with runs of points."""
    cost, edges, status, settled = route_edges(li, hd, wl, weights, s, t, dist, stamps,
                                               parents, hk, hn, hp, gen, stack)
    if status != 0:
        return cost, np.empty(0, dtype=np.int32), np.empty((0, 2), dtype=np.float64), \
            status, settled
    k = edges.shape[0]
    nodes = np.empty(k + 1, dtype=np.int32)
    nodes[0] = start
    total = k + 1
    for i in range(k):
        e = edges[i]
        nodes[i + 1] = targets[e]
        total += runs[e + 1] - runs[e] - 1
    points = np.empty((total, 2), dtype=np.float64)
    points[0, 0] = start_xy[start, 0]
    points[0, 1] = start_xy[start, 1]
    w = 1
    for i in range(k):
        e = edges[i]
        for j in range(runs[e], runs[e + 1]):
            points[w, 0] = run_xy[j, 0]
            points[w, 1] = run_xy[j, 1]
            w += 1
    return cost, nodes, points, status, settled


@njit(cache=True, nogil=True)
def many_path_queries(ff, fh, fw, fa, bf, bh, bw, ba, s, t, df, db, sf, sb, pf, pb, hkf, hnf,
                      hpf, hkb, hnb, hpb, gen, m, sc_c1, sc_c2, weights, stack, first, costs,
                      offsets, settled, edges):
    """:func:`path_query` for pairs ``first, first + 1, ...`` of ranks
    ``s``, ``t`` on the calling thread, one after another into ``costs``,
    ``settled`` and the flat ``edges`` (path ``i`` is
    ``edges[offsets[i]:offsets[i + 1]]``; ``edges`` grows as needed, so
    it is returned). Returns ``(i, gen, edges)``: ``i`` the number of pairs
    done (a heap ran out of room at pair ``i`` when short of ``s``'s
    length: the caller grows the heaps and goes on from there) and the
    last generation used. One call for a batch instead of a call per
    pair: the Python between calls cost as much as a query."""
    for i in range(first, s.shape[0]):
        if gen >= _GEN_MAX:                  # wrap-around: wipe the stamps once
            sf[:] = 0
            sb[:] = 0
            gen = 0
        gen += 1
        cost, path, status, count = path_query(ff, fh, fw, fa, bf, bh, bw, ba, s[i], t[i], df,
                                               db, sf, sb, pf, pb, hkf, hnf, hpf, hkb, hnb,
                                               hpb, gen, m, sc_c1, sc_c2, weights, stack)
        if status == -2:
            return i, gen, edges
        settled[i] = count
        costs[i] = cost
        a = offsets[i]
        b = a + path.shape[0]
        if b > edges.shape[0]:
            grown = np.empty(max(2 * edges.shape[0], b), dtype=np.int64)
            grown[:a] = edges[:a]
            edges = grown
        edges[a:b] = path
        offsets[i + 1] = b
    return s.shape[0], gen, edges


@njit(cache=True, nogil=True, parallel=True)
def pair_distances(fwd, bwd, s, t, out, rows):
    """:func:`bidir` for every pair ``s[i]``, ``t[i]`` (ranks) into
    ``out[i]`` over the upward graphs ``fwd`` and ``bwd``
    (:class:`UpwardGraph`), in parallel with a row of ``rows``
    (:class:`SearchRows`) per thread; NaN where a heap ran out of room."""
    # unpacked once: an array read out of a tuple per pair costs a reference
    ff, fh, fw, bf, bh, bw = fwd.first, fwd.head, fwd.w, bwd.first, bwd.head, bwd.w
    df, db, sf, sb, pf, pb, hkf, hnf, hkb, hnb, gens, hpf, hpb = rows
    for i in prange(s.shape[0]):
        row = get_thread_id()
        best, meet, _ = bidir(ff, fh, fw, bf, bh, bw, s[i], t[i], df[row], db[row], sf[row],
                              sb[row], pf[row], pb[row], hkf[row], hnf[row], hpf[row],
                              hkb[row], hnb[row], hpb[row], _next_gen(gens, row, sf, sb))
        out[i] = np.nan if meet == -2 else best


@njit(cache=True, nogil=True)
def _upward(af, ah, aw, bf, bh, bw, src, dist, stamp, gen, hk, hn, nodes, dists):
    """Upward Dijkstra from ``src`` on graph a, stalling by graph b (edges
    into a node from above). Writes the settled, unstalled nodes and their
    distances into ``nodes``/``dists``; returns their count, or -1 if the
    heap or the output ran out of room."""
    cap = hk.shape[0]
    ocap = nodes.shape[0]
    dist[src] = 0.0
    stamp[src] = gen
    hk[0] = 0.0
    hn[0] = src
    size = 1
    cnt = 0
    while size > 0:
        d, x, size = lazy_take(hk, hn, size)
        if d > dist[x]:
            continue
        stalled = False
        for e in range(bf[x], bf[x + 1]):
            y = bh[e]
            if stamp[y] == gen and dist[y] + bw[e] <= d:
                stalled = True
                break
        if stalled:
            continue
        if cnt >= ocap:
            return -1
        nodes[cnt] = x
        dists[cnt] = d
        cnt += 1
        for e in range(af[x], af[x + 1]):
            y = ah[e]
            nd = d + aw[e]
            if stamp[y] != gen or nd < dist[y]:
                if size >= cap:
                    return -1
                dist[y] = nd
                stamp[y] = gen
                _push(hk, hn, size, nd, y)
                size += 1
    return cnt


@njit(cache=True, nogil=True, parallel=True)
def bucket_matrix(a, b, srcs, tgts, n, rows, space):
    """Many-to-many by buckets (``navcore_csr.buckets``): an upward search
    on :class:`UpwardGraph` ``b`` from every ``tgts`` rank fills the buckets
    of its settled nodes, then an upward search on ``a`` from every
    ``srcs`` rank scans the buckets of its settled nodes (scratch: the
    ``df``, ``sf``, ``hkf``, ``hnf`` and ``gens`` of :class:`SearchRows`).
    ``(result, ok)``: the ``(S, T)`` distances (inf unreachable), ``ok``
    False when a search ran out of room (the caller grows ``space``, the
    per-search output room, and the heaps, and asks again)."""
    dist, stamp, gens, hk, hn = rows.df, rows.sf, rows.gens, rows.hkf, rows.hnf
    af, ah, aw, bf, bh, bw = a.first, a.head, a.w, b.first, b.head, b.w
    ns = srcs.shape[0]
    nt = tgts.shape[0]
    res = np.full((ns, nt), INF)
    if ns == 0 or nt == 0:
        return res, True
    # backward searches, each into its own row of one big array
    bn = np.empty((nt, space), dtype=np.int32)
    bd = np.empty((nt, space), dtype=np.float64)
    cnt = np.empty(nt, dtype=np.int64)
    for j in prange(nt):
        row = get_thread_id()
        cnt[j] = _upward(bf, bh, bw, af, ah, aw, tgts[j], dist[row], stamp[row],
                         _next_gen(gens, row, stamp, stamp), hk[row], hn[row], bn[j], bd[j])
    if cnt.min() < 0:
        return res, False
    first, btgt, bdst = fill_buckets(bn, bd, cnt, n)
    # forward searches scan the buckets
    fails = np.zeros(ns, dtype=np.bool_)
    fn = np.empty((dist.shape[0], space), dtype=np.int32)
    fd = np.empty((dist.shape[0], space), dtype=np.float64)
    for i in prange(ns):
        row = get_thread_id()
        c = _upward(af, ah, aw, bf, bh, bw, srcs[i], dist[row], stamp[row],
                    _next_gen(gens, row, stamp, stamp), hk[row], hn[row], fn[row], fd[row])
        if c < 0:
            fails[i] = True
        else:
            scan_buckets(res[i], fn[row], fd[row], c, first, btgt, bdst)
    return res, not fails.any()


@njit(cache=True, nogil=True)
def arc_hops(sc_c1, sc_c2, m):
    """Input edges each arc stands for (1 for an input edge); children are
    older than their shortcut, so one pass suffices."""
    nsc = sc_c1.shape[0]
    hops = np.ones(m + nsc, dtype=np.int64)
    for k in range(nsc):
        hops[m + k] = hops[sc_c1[k]] + hops[sc_c2[k]]
    return hops


@njit(cache=True, nogil=True, parallel=True)
def pair_arcs(fwd, bwd, s, t, hops, arcs, narcs, nedges, settled, rows):
    """Phase one of many routes: :func:`bidir` for every pair (ranks) over
    the upward graphs ``fwd`` and ``bwd`` (scratch: a row of
    ``rows``, :class:`SearchRows`, per thread), the
    path's arcs (up from ``s[i]``, then down to ``t[i]``) into row ``i`` of
    ``arcs`` and how many input edges they unpack to into ``nedges[i]``.
    ``narcs[i]``: the number of arcs, -1 unreachable, -2 a heap ran out of
    room, -3 the row of ``arcs`` is too short (the caller retries those);
    ``settled[i]``: the nodes both searches expanded (as :func:`path_query`
    counts them)."""
    width = arcs.shape[1]
    ff, fh, fw, fa = fwd
    bf, bh, bw, ba = bwd
    df, db, sf, sb, pf, pb, hkf, hnf, hkb, hnb, gens, hpf, hpb = rows
    for i in prange(s.shape[0]):
        row = get_thread_id()
        best, meet, count = bidir(ff, fh, fw, bf, bh, bw, s[i], t[i], df[row], db[row],
                                  sf[row], sb[row], pf[row], pb[row], hkf[row], hnf[row],
                                  hpf[row], hkb[row], hnb[row], hpb[row],
                                  _next_gen(gens, row, sf, sb))
        settled[i] = count
        if meet < 0:
            narcs[i] = meet
            continue
        nf = 0
        x = meet
        while x != s[i]:
            nf += 1
            x = _tail(ff, pf[row, x])
        nb = 0
        x = meet
        while x != t[i]:
            nb += 1
            x = _tail(bf, pb[row, x])
        if nf + nb > width:
            narcs[i] = -3
            continue
        x = meet
        total = 0
        for j in range(nf - 1, -1, -1):
            e = pf[row, x]
            arcs[i, j] = fa[e]
            total += hops[fa[e]]
            x = _tail(ff, e)
        x = meet
        for j in range(nf, nf + nb):
            e = pb[row, x]
            arcs[i, j] = ba[e]
            total += hops[ba[e]]
            x = _tail(bf, e)
        narcs[i] = nf + nb
        nedges[i] = total


@njit(cache=True, nogil=True, parallel=True)
def unpack_arcs(arcs, narcs, offsets, m, sc_c1, sc_c2, weights, depth, edges, costs):
    """Phase two: the input edges of row ``i`` of ``arcs`` into
    ``edges[offsets[i]:offsets[i + 1]]`` and their weights summed in path
    order into ``costs[i]`` (rows with ``narcs[i] < 0`` are skipped)."""
    for i in prange(narcs.shape[0]):
        if narcs[i] < 0:
            continue
        stack = np.empty(depth + 2, dtype=np.int64)
        out = edges[offsets[i]:offsets[i + 1]]
        p = 0
        for j in range(narcs[i]):
            p = _expand(arcs[i, j], m, sc_c1, sc_c2, stack, out, p)
        c = 0.0
        for j in range(p):
            c += weights[out[j]]
        costs[i] = c
