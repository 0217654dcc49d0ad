"""numba kernels of road isochrones (private; see ``isochrone.py``): the
outlines, and the bounded search over the edges under turn rules."""
from __future__ import annotations

import numpy as np
from numba import njit

from navcore._kernels import lazy_pop as pop, lazy_push as push

from ._turns import turn_cost


@njit(cache=True, nogil=True)
def clip_chains(edges, start, stop, chain_start, chain, seg_cost, seg_src, seg_dst, lon,
                lat):
    """float64 ``(k, 2, 2)``: the part of each segment of edge
    ``edges[i]`` that lies between ``start[i]`` and ``stop[i]`` (costs
    from the edge's tail, the segments' costs summed in chain order), as
    2-point (lon, lat) lines, cut in proportion to the segment's cost (as
    a point snapped at fraction ``t`` of a segment is ``t`` of its cost
    along). A segment of infinite cost (closed) and all after it are
    left out."""
    total = 0
    for i in range(edges.shape[0]):
        e = edges[i]
        total += chain_start[e + 1] - chain_start[e]
    out = np.empty((total, 2, 2), dtype=np.float64)
    w = 0
    for i in range(edges.shape[0]):
        e = edges[i]
        a = start[i]
        b = stop[i]
        c0 = 0.0
        for j in range(chain_start[e], chain_start[e + 1]):
            s = chain[j]
            c = seg_cost[s]
            if not c < np.inf:
                break
            c1 = c0 + c
            lo = max(a, c0)
            hi = min(b, c1)
            if hi >= lo and (hi > lo or c == 0.0):
                f0 = (lo - c0) / c if c > 0 else 0.0
                f1 = (hi - c0) / c if c > 0 else 1.0
                u = seg_src[s]
                v = seg_dst[s]
                dx = lon[v] - lon[u]
                dy = lat[v] - lat[u]
                out[w, 0, 0] = lon[u] + f0 * dx
                out[w, 0, 1] = lat[u] + f0 * dy
                out[w, 1, 0] = lon[u] + f1 * dx
                out[w, 1, 1] = lat[u] + f1 * dy
                w += 1
            if c1 >= b:
                break
            c0 = c1
    return out[:w]


@njit(cache=True, nogil=True, inline="always")
def _label(dist, stamp, gen, hk, hn, size, touched, count, f, d):
    """Offer edge state ``f`` the cost ``d`` (its head reached): ``(heap
    size, touched count)`` after."""
    fresh = stamp[0, f] < 2 * gen and stamp[1, f] != 2 * gen
    if fresh:
        touched[count] = f
        count += 1
    if stamp[0, f] < 2 * gen or (stamp[0, f] == 2 * gen and d < dist[0, f]):
        dist[0, f] = d
        stamp[0, f] = 2 * gen
        push(hk, hn, size, d, f)
        size += 1
    return size, count


@njit(cache=True, nogil=True, inline="always")
def _enter(cost, limit, dist, stamp, gen, hk, hn, size, touched, count, f, c):
    """Drive onto edge ``f`` from its tail at cost ``c`` (the turn paid):
    its piece from the tail is reached at ``c``, its head at ``c +
    cost[f]`` when that is within ``limit``."""
    if c > limit:
        return size, count
    if stamp[0, f] < 2 * gen and stamp[1, f] != 2 * gen:
        touched[count] = f
        count += 1
    if stamp[1, f] != 2 * gen or c < dist[1, f]:
        dist[1, f] = c
        stamp[1, f] = 2 * gen
    d = c + cost[f]
    if d <= limit:
        size, count = _label(dist, stamp, gen, hk, hn, size, touched, count, f, d)
    return size, count


@njit(cache=True, nogil=True)
def turn_reach(offsets, targets, cost, walkable, t_off, t_to, t_cost, node_seeds, node_cost,
               edge_seeds, edge_cost, limit, dist, stamp, gen, hk, hn, touched):
    """Dijkstra over the road edges (a state: an edge driven to its head;
    a move from ``e`` onto ``f`` costs ``cost[f]`` plus the turn's,
    ``_turns.turn_cost``) from junctions ``node_seeds`` (``node_cost``
    spent there: onto any of their edges without a turn) and edge states
    ``edge_seeds`` (``edge_cost`` spent at the edge's head: a point on the
    edge), never settling a state above ``limit``. Row 0 of ``dist`` and
    ``stamp``: the cost at each edge's head (``2 * gen``: labelled, ``2 *
    gen + 1``: settled); row 1: the cost at which the edge is entered from
    its tail, the turn paid (``2 * gen``: set), where that is within
    ``limit``. Writes every edge given either label to ``touched`` and
    returns how many. Closed edges (inf) and edges to or from blocked
    junctions are never entered."""
    size = 0
    count = 0
    for i in range(node_seeds.shape[0]):
        s = node_seeds[i]
        c = node_cost[i]
        if walkable[s] and c <= limit:
            for f in range(offsets[s], offsets[s + 1]):
                if walkable[targets[f]] and cost[f] < np.inf:
                    size, count = _enter(cost, limit, dist, stamp, gen, hk, hn, size,
                                         touched, count, f, c)
    for i in range(edge_seeds.shape[0]):
        e = edge_seeds[i]
        c = edge_cost[i]
        if walkable[targets[e]] and c <= limit and c < np.inf:
            size, count = _label(dist, stamp, gen, hk, hn, size, touched, count, e, c)
    closed = 2 * gen + 1
    while size > 0:
        e = hn[0]
        pop(hk, hn, size)
        size -= 1
        if stamp[0, e] == closed:
            continue
        stamp[0, e] = closed
        de = dist[0, e]
        v = targets[e]
        for f in range(offsets[v], offsets[v + 1]):
            # a settled ``f`` is entered too: a point source on it settles
            # its head without its piece from the tail (``_enter`` then
            # only records that piece)
            if walkable[targets[f]] and cost[f] < np.inf:
                tc = turn_cost(t_off, t_to, t_cost, e, f)
                if tc < np.inf:
                    size, count = _enter(cost, limit, dist, stamp, gen, hk, hn, size,
                                         touched, count, f, de + tc)
    return count
