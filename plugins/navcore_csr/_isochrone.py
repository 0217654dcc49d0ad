"""numba kernel of the isochrones (private; see ``isochrone.py``)."""
from __future__ import annotations

import numpy as np
from numba import njit

from navcore._kernels import heap4_place, heap4_pop, lazy_pop, lazy_push


@njit(cache=True, nogil=True, inline="always")
def _offer(stamp, g, hnode, hkey, hpos, size, v, d, open_mark):
    """Give node ``v`` (not closed) cost ``d`` if that is less than it
    has: open it, or lower its key; returns the heap's size."""
    if stamp[v] == open_mark:
        if d < g[v]:
            g[v] = d
            heap4_place(hnode, hkey, hpos, hpos[v], v, d)
        return size
    g[v] = d
    stamp[v] = open_mark
    heap4_place(hnode, hkey, hpos, size, v, d)
    return size + 1


@njit(cache=True, nogil=True, inline="always")
def _take(hk, hn, size):
    """``(key, node, size)``: the least entry of a lazy heap, removed."""
    key = hk[0]
    node = hn[0]
    lazy_pop(hk, hn, size)
    return key, node, size - 1


@njit(cache=True, nogil=True)
def bounded_dijkstra(offsets, targets, cost, walkable, seeds, seed_cost, limit, stamp, g,
                     hnode, hkey, hpos, open_mark, order, cap):
    """Dijkstra from every seed at once (``seed_cost[i]`` spent at
    ``seeds[i]``) that never settles a node above ``limit``: writes the
    settled nodes in ``order`` (least cost first) and returns how many;
    their costs are in ``g``. A blocked node (``walkable`` False) is
    never entered, a seed on one neither; a NaN or inf cost never fits.
    Returns -1 when it would settle more than ``cap`` nodes (the caller
    sweeps the hierarchy instead)."""
    closed_mark = open_mark + 1
    size = 0
    for i in range(seeds.size):
        s = seeds[i]
        c = seed_cost[i]
        if walkable[s] and c <= limit and c < np.inf:
            size = _offer(stamp, g, hnode, hkey, hpos, size, s, c, open_mark)
    count = 0
    while size > 0:
        if count == cap:
            return -1
        u, size = heap4_pop(hnode, hkey, hpos, size)   # 4-ary: see navcore._kernels
        stamp[u] = closed_mark
        order[count] = u
        count += 1
        du = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            d = du + cost[e]
            # inf: a closed edge (it never fits, not even an infinite limit)
            if stamp[v] != closed_mark and walkable[v] and d <= limit and d < np.inf:
                # _offer written out: through it (inlined) the search ran
                # 1.2-1.3x slower (250k-node roads, 55k nodes settled)
                if stamp[v] == open_mark:
                    if d < g[v]:
                        g[v] = d
                        heap4_place(hnode, hkey, hpos, hpos[v], v, d)
                else:
                    g[v] = d
                    stamp[v] = open_mark
                    heap4_place(hnode, hkey, hpos, size, v, d)
                    size += 1
    return count


@njit(cache=True, nogil=True)
def phast(fwd_first, fwd_head, fwd_w, bwd_first, bwd_head, bwd_w, seed_ranks, seed_cost,
          limit, d):
    """PHAST over a contraction hierarchy (nodes by rank): ``d[r]`` the
    least cost from the seeds to rank ``r`` where it is ``<= limit``
    (above it: anything greater than ``limit``). An upward Dijkstra from
    every seed over the forward graph, pruned above ``limit`` (costs are
    >= 0, so no path within the limit leaves it), then one sweep down the
    ranks: each rank, once every higher one is final, takes the least
    ``d[x] + w`` over its backward arcs ``x -> r``. A shortest path is an
    upward part then a downward one, every node on it within the limit."""
    n = d.shape[0]
    for r in range(n):
        d[r] = np.inf
    cap = fwd_head.shape[0] + seed_ranks.shape[0] + 1
    hk = np.empty(cap, dtype=np.float64)
    hn = np.empty(cap, dtype=np.int64)
    size = 0
    for i in range(seed_ranks.shape[0]):
        r = seed_ranks[i]
        c = seed_cost[i]
        if c <= limit and c < d[r]:
            d[r] = c
            lazy_push(hk, hn, size, c, r)
            size += 1
    while size > 0:
        du, u, size = _take(hk, hn, size)
        if du > d[u]:
            continue                            # a stale entry
        for e in range(fwd_first[u], fwd_first[u + 1]):
            x = fwd_head[e]
            c = du + fwd_w[e]
            if c <= limit and c < d[x]:
                d[x] = c
                lazy_push(hk, hn, size, c, x)
                size += 1
    for r in range(n - 1, -1, -1):
        best = d[r]
        for e in range(bwd_first[r], bwd_first[r + 1]):
            c = d[bwd_head[e]] + bwd_w[e]
            if c < best:
                best = c
        d[r] = best
