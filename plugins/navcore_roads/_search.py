"""numba kernels of the road searches without a hierarchy (private; see
``search.py``): A* (Dijkstra when the heuristic scale is 0) and
bidirectional Dijkstra, both with lazy binary heaps (``navcore._kernels``) (an entry per
relaxation, so a heap as long as the edge list never overflows) and
generation-stamped labels: a query costs one increment to
start, and allocates only its result. Both searches stop after a budget
of settled nodes and carry on from an int64 register array (``regs``,
``R_*``): ``find_path`` runs them with ``UNLIMITED``, ``sliced.py`` a
step at a time, so both give the same route and ``expanded``.

Labels: ``stamp[side, v] == 2 * gen`` open, ``2 * gen + 1`` closed;
``par[side, v]`` is the forward-CSR edge that reached ``v`` (for the
backward side, the edge leaving ``v`` towards the goal).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from navcore._kernels import lazy_pop as pop, lazy_push as push
from navcore.search import UNLIMITED

INF = np.inf
#: ``unit`` for a graph without coordinates (and for searches that need none)
NO_UNIT = np.zeros((1, 3))


#: a kernel's cost when it stopped at its expansion budget (to be resumed)
PAUSED = -1.0
#: the searches' registers, an int64 array kept between the calls of one
#: search: heap sizes (forward, backward), nodes settled so far (-1: the
#: next call begins a search), the meeting node, the settled node nearest
#: the goal (for a partial path) and whether to look for it
R_SIZE, R_SIZE_B, R_EXPANDED, R_MEET, R_BEST, R_TRACK = 0, 1, 2, 3, 4, 5
REGISTERS = 6


@njit(cache=True, nogil=True, inline="always")
def _chord(unit, v, tx, ty, tz):
    dx = unit[v, 0] - tx
    dy = unit[v, 1] - ty
    dz = unit[v, 2] - tz
    return np.sqrt(dx * dx + dy * dy + dz * dz)


@njit(cache=True, nogil=True)
def astar(offsets, targets, cost, walkable, unit, scale, s, t,
          dist, par, stamp, hk, hn, gen, regs, budget):
    """A* from ``s`` to ``t``; ``h(v) = scale * |unit[v] - unit[t]|`` (a
    chord, never longer than the great circle; ``scale`` is at most the
    cheapest cost per chord metre, so h is consistent), resumable: one
    call settles at most ``budget`` nodes.

    Returns ``(cost, expanded)``: cost is inf when ``t`` is not reached,
    ``PAUSED`` when the budget ran out first (a later call with the same
    arrays, ``gen`` and registers ``regs`` carries on); ``expanded``
    counts the nodes settled over all calls. A search begins when
    ``regs[R_EXPANDED] == -1`` and a finished one sets it back to -1.
    With ``regs[R_TRACK]`` (and coordinates: ``unit`` has a row per
    node) ``regs[R_BEST]`` follows the settled node of the shortest chord
    to ``t`` (ties: the earlier), for a partial path."""
    # not navcore_csr's astar: a lazy heap (one push per relaxation, stale
    # entries skipped), parents as edges for the drawn road, a chord heuristic
    opened = 2 * gen
    closed = opened + 1
    # without coordinates ``unit`` is one row: unit[t] would read past it
    # (numba does not check; NUMBA_DISABLE_JIT=1 raised IndexError)
    tx = ty = tz = 0.0
    coords = unit.shape[0] > t
    if coords:
        tx = unit[t, 0]
        ty = unit[t, 1]
        tz = unit[t, 2]
    # the registers as navcore_csr's and navcore_grid's resumable searches
    # keep theirs (kept per kernel: each plugin's kernels are its own)
    expanded = regs[R_EXPANDED]
    if expanded < 0:
        dist[s] = 0.0
        par[s] = -1
        stamp[s] = opened
        push(hk, hn, 0, 0.0, s)
        size = 1
        expanded = 0
        regs[R_BEST] = -1
    else:
        size = regs[R_SIZE]
    track = regs[R_TRACK] != 0
    best = regs[R_BEST]
    best_h = INF
    if best >= 0:
        best_h = _chord(unit, best, tx, ty, tz) if coords else 0.0
    stop = expanded + budget
    while size > 0:
        u = hn[0]
        if stamp[u] == closed:
            pop(hk, hn, size)
            size -= 1
            continue
        if expanded >= stop:
            regs[R_SIZE] = size
            regs[R_EXPANDED] = expanded
            regs[R_BEST] = best
            return PAUSED, expanded
        pop(hk, hn, size)
        size -= 1
        stamp[u] = closed
        expanded += 1
        if track:
            h = _chord(unit, u, tx, ty, tz) if coords else 0.0
            if h < best_h:
                best = u
                best_h = h
        if u == t:
            regs[R_EXPANDED] = -1
            regs[R_BEST] = best
            return dist[t], expanded
        du = dist[u]
        for k in range(offsets[u], offsets[u + 1]):
            v = targets[k]
            if stamp[v] == closed or not walkable[v]:
                continue
            nd = du + cost[k]
            if not nd < INF or (stamp[v] == opened and nd >= dist[v]):
                continue
            dist[v] = nd
            par[v] = k
            stamp[v] = opened
            h = 0.0
            if scale > 0.0:
                h = scale * _chord(unit, v, tx, ty, tz)
            push(hk, hn, size, nd + h, v)
            size += 1
    regs[R_EXPANDED] = -1
    regs[R_BEST] = best
    return INF, expanded


@njit(cache=True, nogil=True)
def bidijkstra(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable, unit, s, t,
               dist, par, stamp, hk, hn, gen, regs, budget):
    """Bidirectional Dijkstra: forward from ``s`` on the graph, backward
    from ``t`` on its transpose (``b_*``: in-edges, ``b_eid`` the forward
    edge id), the side with the smaller queue top first; stops when the
    two tops together reach the best meeting cost. Returns
    ``(cost, meet, expanded)``; ``meet`` is -1 when unreachable; resumable
    as ``astar`` (``PAUSED``), ``regs[R_BEST]`` following the forward
    side's settled node of the shortest chord to ``t``."""
    return bidijkstra_seeded(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable,
                             unit, s, 0.0, -1, INF, t, 0.0, -1, INF, dist, par, stamp, hk,
                             hn, gen, regs, budget)


@njit(cache=True, nogil=True)
def _seed(side, v, d, dist, par, stamp, hk, hn, size, opened):
    """Label root ``v`` of ``side`` at ``d`` (skipped: -1 or inf)."""
    if v < 0 or not d < INF or (stamp[side, v] == opened and dist[side, v] <= d):
        return size
    dist[side, v] = d
    par[side, v] = -1
    stamp[side, v] = opened
    push(hk[side], hn[side], size, d, v)
    return size + 1


@njit(cache=True, nogil=True)
def bidijkstra_seeded(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable, unit,
                      s1, ds1, s2, ds2, t1, dt1, t2, dt2, dist, par, stamp, hk, hn, gen,
                      regs, budget):
    """``bidijkstra`` from two roots at costs ``ds1``/``ds2`` (a phantom
    node's exits: the rest of its road's cost) to two roots at ``dt1``/
    ``dt2`` (its entries), -1 or inf for a missing one: the cheapest of
    every root-cost + path + root-cost in one search. The path found runs
    from the forward root that ``par[0]`` leads back to. Resumable as
    ``astar``; the best meeting cost is kept as the meeting node (it is
    always ``dist[0, meet] + dist[1, meet]``)."""
    opened = 2 * gen
    closed = opened + 1
    expanded = regs[R_EXPANDED]
    if expanded < 0:
        size0 = _seed(0, s1, ds1, dist, par, stamp, hk, hn, 0, opened)
        size0 = _seed(0, s2, ds2, dist, par, stamp, hk, hn, size0, opened)
        size1 = _seed(1, t1, dt1, dist, par, stamp, hk, hn, 0, opened)
        size1 = _seed(1, t2, dt2, dist, par, stamp, hk, hn, size1, opened)
        best = INF
        meet = -1
        # a root of both sides meets at once
        if t1 >= 0 and stamp[0, t1] == opened and stamp[1, t1] == opened:
            best = dist[0, t1] + dist[1, t1]
            meet = t1
        if t2 >= 0 and stamp[0, t2] == opened and stamp[1, t2] == opened and \
                dist[0, t2] + dist[1, t2] < best:
            best = dist[0, t2] + dist[1, t2]
            meet = t2
        expanded = 0
        regs[R_BEST] = -1
    else:
        size0 = regs[R_SIZE]
        size1 = regs[R_SIZE_B]
        meet = regs[R_MEET]
        best = dist[0, meet] + dist[1, meet] if meet >= 0 else INF
    track = regs[R_TRACK] != 0 and t1 >= 0
    coords = unit.shape[0] == walkable.shape[0]
    tx = ty = tz = 0.0
    if track and coords:
        tx = unit[t1, 0]
        ty = unit[t1, 1]
        tz = unit[t1, 2]
    near = regs[R_BEST]
    near_h = INF
    if near >= 0:
        near_h = _chord(unit, near, tx, ty, tz) if coords else 0.0
    stop = expanded + budget
    while size0 > 0 or size1 > 0:
        top0 = hk[0, 0] if size0 > 0 else INF
        top1 = hk[1, 0] if size1 > 0 else INF
        if top0 + top1 >= best:
            break
        side = 0 if top0 <= top1 else 1
        other = 1 - side
        u = hn[side, 0]
        stale = stamp[side, u] == closed
        if not stale and expanded >= stop:
            regs[R_SIZE] = size0
            regs[R_SIZE_B] = size1
            regs[R_EXPANDED] = expanded
            regs[R_MEET] = meet
            regs[R_BEST] = near
            return PAUSED, meet, expanded
        if side == 0:
            pop(hk[0], hn[0], size0)
            size0 -= 1
        else:
            pop(hk[1], hn[1], size1)
            size1 -= 1
        if stale:
            continue
        stamp[side, u] = closed
        expanded += 1
        if track and side == 0:
            h = _chord(unit, u, tx, ty, tz) if coords else 0.0
            if h < near_h:
                near = u
                near_h = h
        du = dist[side, u]
        lo = f_off[u] if side == 0 else b_off[u]
        hi = f_off[u + 1] if side == 0 else b_off[u + 1]
        for k in range(lo, hi):
            if side == 0:
                v = f_tgt[k]
                w = f_cost[k]
                edge = k
            else:
                v = b_src[k]
                w = b_cost[k]
                edge = b_eid[k]
            if stamp[side, v] == closed or not walkable[v]:
                continue
            nd = du + w
            if not nd < INF or (stamp[side, v] == opened and nd >= dist[side, v]):
                continue
            dist[side, v] = nd
            par[side, v] = edge
            stamp[side, v] = opened
            if side == 0:
                push(hk[0], hn[0], size0, nd, v)
                size0 += 1
            else:
                push(hk[1], hn[1], size1, nd, v)
                size1 += 1
            if stamp[other, v] >= opened:             # labelled from the other end
                total = nd + dist[other, v]
                if total < best:
                    best = total
                    meet = v
    regs[R_EXPANDED] = -1
    regs[R_BEST] = near
    return best, meet, expanded


@njit(cache=True, nogil=True)
def trace_edges(par, ends, node, forward_side):
    """Edges between the search root and ``node`` following ``par``, in
    path order: for the forward side ``ends`` holds each edge's source
    (walking back to the start), for the backward side its target
    (walking on to the goal)."""
    k = 0
    v = node
    while par[v] >= 0:
        v = ends[par[v]]
        k += 1
    out = np.empty(k, dtype=np.int64)
    v = node
    for j in range(k):
        e = par[v]
        out[k - 1 - j if forward_side else j] = e
        v = ends[e]
    return out


@njit(cache=True, nogil=True)
def route_edges(par, src, dst, meet):
    """The edges of a bidirectional search's route in path order: from
    the forward root to ``meet`` (``par[0]``, ``src`` each edge's tail),
    then on to the backward root (``par[1]``, ``dst`` each edge's head)."""
    nf = 0
    v = meet
    while par[0, v] >= 0:
        v = src[par[0, v]]
        nf += 1
    nb = 0
    v = meet
    while par[1, v] >= 0:
        v = dst[par[1, v]]
        nb += 1
    out = np.empty(nf + nb, dtype=np.int64)
    v = meet
    for j in range(nf):
        e = par[0, v]
        out[nf - 1 - j] = e
        v = src[e]
    v = meet
    for j in range(nb):
        e = par[1, v]
        out[nf + j] = e
        v = dst[e]
    return out


@njit(cache=True, nogil=True, parallel=True)
def pairs(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable, sources, goals,
          out, threads):
    """``out[i]``: cost from ``sources[i]`` to ``goals[i]`` by
    bidirectional Dijkstra, the pairs split over ``threads`` chunks."""
    n = f_off.shape[0] - 1
    m = f_tgt.shape[0]
    chunk = (sources.shape[0] + threads - 1) // threads
    for c in prange(threads):
        dist = np.empty((2, n), dtype=np.float64)
        par = np.empty((2, n), dtype=np.int64)
        stamp = np.zeros((2, n), dtype=np.int32)
        hk = np.empty((2, m + 1), dtype=np.float64)
        hn = np.empty((2, m + 1), dtype=np.int32)
        regs = np.full(REGISTERS, -1, dtype=np.int64)
        regs[R_TRACK] = 0
        for i in range(c * chunk, min(sources.shape[0], (c + 1) * chunk)):
            s = sources[i]
            t = goals[i]
            if walkable[s] and walkable[t]:
                out[i] = bidijkstra(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost,
                                    walkable, NO_UNIT, s, t, dist, par, stamp, hk, hn,
                                    i + 1, regs, UNLIMITED)[0]
            else:
                out[i] = INF
