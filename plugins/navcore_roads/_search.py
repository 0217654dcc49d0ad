"""numba kernels of the road searches without a hierarchy (private; see
``search.py``): A* (Dijkstra when the heuristic scale is 0) and
bidirectional Dijkstra, both with lazy binary heaps (``navcore._kernels``) (an entry per
relaxation, so a heap as long as the edge list never overflows) and
generation-stamped labels: a query costs one increment to
start, and allocates only its result.

Labels: ``stamp[side, v] == 2 * gen`` open, ``2 * gen + 1`` closed;
``par[side, v]`` is the forward-CSR edge that reached ``v`` (for the
backward side, the edge leaving ``v`` towards the goal).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from navcore._kernels import lazy_pop as pop, lazy_push as push

INF = np.inf


@njit(cache=True, nogil=True)
def astar(offsets, targets, cost, walkable, unit, scale, s, t,
          dist, par, stamp, hk, hn, gen):
    """A* from ``s`` to ``t``; ``h(v) = scale * |unit[v] - unit[t]|`` (a
    chord, never longer than the great circle; ``scale`` is at most the
    cheapest cost per chord metre, so h is consistent). Returns
    ``(cost, expanded)``; cost is inf when ``t`` is not reached."""
    # not navcore_csr's astar: a lazy heap (one push per relaxation, stale
    # entries skipped), parents as edges for the drawn road, a chord heuristic
    opened = 2 * gen
    closed = opened + 1
    # without coordinates (scale 0) ``unit`` is one row: unit[t] would read
    # past it (numba does not check; NUMBA_DISABLE_JIT=1 raised IndexError)
    tx = ty = tz = 0.0
    if scale > 0.0:
        tx = unit[t, 0]
        ty = unit[t, 1]
        tz = unit[t, 2]
    dist[s] = 0.0
    par[s] = -1
    stamp[s] = opened
    push(hk, hn, 0, 0.0, s)
    size = 1
    expanded = 0
    while size > 0:
        u = hn[0]
        pop(hk, hn, size)
        size -= 1
        if stamp[u] == closed:
            continue
        stamp[u] = closed
        expanded += 1
        if u == t:
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
                dx = unit[v, 0] - tx
                dy = unit[v, 1] - ty
                dz = unit[v, 2] - tz
                h = scale * np.sqrt(dx * dx + dy * dy + dz * dz)
            push(hk, hn, size, nd + h, v)
            size += 1
    return INF, expanded


@njit(cache=True, nogil=True)
def bidijkstra(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable, s, t,
               dist, par, stamp, hk, hn, gen):
    """Bidirectional Dijkstra: forward from ``s`` on the graph, backward
    from ``t`` on its transpose (``b_*``: in-edges, ``b_eid`` the forward
    edge id), the side with the smaller queue top first; stops when the
    two tops together reach the best meeting cost. Returns
    ``(cost, meet, expanded)``; ``meet`` is -1 when unreachable."""
    return bidijkstra_seeded(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable,
                             s, 0.0, -1, INF, t, 0.0, -1, INF, dist, par, stamp, hk, hn, gen)


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
def bidijkstra_seeded(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost, walkable,
                      s1, ds1, s2, ds2, t1, dt1, t2, dt2, dist, par, stamp, hk, hn, gen):
    """``bidijkstra`` from two roots at costs ``ds1``/``ds2`` (a phantom
    node's exits: the rest of its road's cost) to two roots at ``dt1``/
    ``dt2`` (its entries), -1 or inf for a missing one: the cheapest of
    every root-cost + path + root-cost in one search. The path found runs
    from the forward root that ``par[0]`` leads back to."""
    opened = 2 * gen
    closed = opened + 1
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
    while size0 > 0 or size1 > 0:
        top0 = hk[0, 0] if size0 > 0 else INF
        top1 = hk[1, 0] if size1 > 0 else INF
        if top0 + top1 >= best:
            break
        side = 0 if top0 <= top1 else 1
        other = 1 - side
        u = hn[side, 0]
        if side == 0:
            pop(hk[0], hn[0], size0)
            size0 -= 1
        else:
            pop(hk[1], hn[1], size1)
            size1 -= 1
        if stamp[side, u] == closed:
            continue
        stamp[side, u] = closed
        expanded += 1
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
        for i in range(c * chunk, min(sources.shape[0], (c + 1) * chunk)):
            s = sources[i]
            t = goals[i]
            if walkable[s] and walkable[t]:
                out[i] = bidijkstra(f_off, f_tgt, f_cost, b_off, b_src, b_eid, b_cost,
                                    walkable, s, t, dist, par, stamp, hk, hn, i + 1)[0]
            else:
                out[i] = INF
