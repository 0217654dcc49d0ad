"""numba kernels of the searches under turn rules (private; see
``turns.py``). A search state is a directed road edge (a CSR position):
being on edge ``e`` means having driven it to its head. Moving from ``e``
onto an edge ``f`` out of ``e``'s head costs ``cost[f]`` plus the turn's
cost (``turn_cost(e, f)``: 0 unless the rules list the pair; ``inf``
forbids it). The moves are read from the road CSR and the rules' CSR per
``from`` edge, never materialised."""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from navcore._kernels import lazy_pop as pop, lazy_push as push

INF = np.inf


@njit(cache=True, nogil=True, inline="always")
def turn_cost(t_off, t_to, t_cost, e, f):
    """The extra cost of the turn from edge ``e`` onto edge ``f``."""
    for k in range(t_off[e], t_off[e + 1]):
        if t_to[k] == f:
            return t_cost[k]
    return 0.0


@njit(cache=True, nogil=True, inline="always")
def _h(unit, scale, v, t):
    if scale == 0.0:
        return 0.0
    dx = unit[v, 0] - unit[t, 0]
    dy = unit[v, 1] - unit[t, 1]
    dz = unit[v, 2] - unit[t, 2]
    return scale * np.sqrt(dx * dx + dy * dy + dz * dz)


@njit(cache=True, nogil=True, inline="always")
def _offer(dist, par, stamp, gen, hk, hn, size, side, x, d, by, best, meet):
    """Label edge ``x`` on ``side`` with ``d`` (reached from edge ``by``)
    when that is better; ``(best, meet)`` with the route through ``x``
    when both sides now reach it more cheaply."""
    if d < _dist(dist[side], stamp[side], x, gen):
        dist[side, x] = d
        par[side, x] = by
        stamp[side, x] = 2 * gen
        push(hk[side], hn[side], size[side], d, x)
        size[side] += 1
        other = _dist(dist[1 - side], stamp[1 - side], x, gen)
        if other < INF and d + other < best:
            return d + other, x
    return best, meet


@njit(cache=True, nogil=True)
def bidirectional(offsets, targets, cost, edge_src, r_off, r_eid, walkable, t_off, t_to,
                  t_cost, s, t, dist, par, stamp, gen, hk, hn):
    """Bidirectional Dijkstra over the edges from junction ``s`` to
    junction ``t`` (``s != t``). Forward labels (row 0) include the edge's
    own cost; backward labels (row 1) are the cost from the edge's head to
    ``t``. Returns ``(cost, meeting edge, settled)``; ``par[1]`` points to
    the next edge of the route. Labels and heaps per side, stamped as in
    ``between_ends``."""
    size = np.zeros(2, dtype=np.int64)
    closed = 2 * gen + 1
    for f in range(offsets[s], offsets[s + 1]):
        if walkable[targets[f]]:
            _offer(dist, par, stamp, gen, hk, hn, size, 0, f, cost[f], -1, INF, -1)
    for k in range(r_off[t], r_off[t + 1]):
        e = r_eid[k]
        if walkable[edge_src[e]]:
            _offer(dist, par, stamp, gen, hk, hn, size, 1, e, 0.0, -1, INF, -1)
    best = INF
    meet = -1
    settled = 0
    while size[0] > 0 and size[1] > 0:
        if hk[0, 0] + hk[1, 0] >= best:
            break
        side = 0 if hk[0, 0] <= hk[1, 0] else 1
        e = hn[side, 0]
        pop(hk[side], hn[side], size[side])
        size[side] -= 1
        if stamp[side, e] == closed:
            continue
        stamp[side, e] = closed
        settled += 1
        de = dist[side, e]
        other = _dist(dist[1 - side], stamp[1 - side], e, gen)
        if other < INF and de + other < best:
            best = de + other
            meet = e
        if side == 0:
            v = targets[e]
            for f in range(offsets[v], offsets[v + 1]):
                if walkable[targets[f]] and stamp[0, f] != closed:
                    best, meet = _offer(dist, par, stamp, gen, hk, hn, size, 0, f,
                                        de + cost[f] + turn_cost(t_off, t_to, t_cost, e, f),
                                        e, best, meet)
        else:
            u = edge_src[e]
            for k in range(r_off[u], r_off[u + 1]):
                p = r_eid[k]
                if walkable[edge_src[p]] and stamp[1, p] != closed:
                    best, meet = _offer(dist, par, stamp, gen, hk, hn, size, 1, p,
                                        de + cost[e] + turn_cost(t_off, t_to, t_cost, p, e),
                                        e, best, meet)
    return best, meet, settled


@njit(cache=True, nogil=True)
def trace(par, meet, both):
    """The edges of a route: back along ``par[0]`` from ``meet``, then
    (``both``: a bidirectional search) on along ``par[1]``."""
    k = 0
    e = meet
    while e >= 0:
        k += 1
        e = par[0, e]
    j = 0
    e = par[1, meet] if both else -1
    while e >= 0:
        j += 1
        e = par[1, e]
    out = np.empty(k + j, dtype=np.int64)
    e = meet
    for i in range(k - 1, -1, -1):
        out[i] = e
        e = par[0, e]
    e = par[1, meet] if both else -1
    for i in range(k, k + j):
        out[i] = e
        e = par[1, e]
    return out


@njit(cache=True, nogil=True, parallel=True)
def pairs(offsets, targets, cost, edge_src, r_off, r_eid, walkable, t_off, t_to, t_cost,
          sources, goals, moves, out):
    """``out[i]``: cost from ``sources[i]`` to ``goals[i]``, a
    bidirectional search per pair over the threads."""
    m = targets.shape[0]
    for i in prange(sources.shape[0]):
        s, t = sources[i], goals[i]
        if s == t:
            out[i] = 0.0
            continue
        dist = np.empty((2, m), dtype=np.float64)
        par = np.empty((2, m), dtype=np.int64)
        stamp = np.zeros((2, m), dtype=np.int32)
        hk = np.empty((2, moves + m + 1), dtype=np.float64)
        hn = np.empty((2, moves + m + 1), dtype=np.int64)
        out[i] = bidirectional(offsets, targets, cost, edge_src, r_off, r_eid, walkable,
                               t_off, t_to, t_cost, s, t, dist, par, stamp, 1, hk, hn)[0]


@njit(cache=True, nogil=True, inline="always")
def _dist(dist, stamp, e, gen):
    """``dist[e]`` when this search (generation ``gen``) labelled ``e``."""
    return dist[e] if stamp[e] >= 2 * gen else INF


@njit(cache=True, nogil=True)
def between_ends(offsets, targets, cost, edge_src, walkable, t_off, t_to, t_cost, unit, scale,
                 seed_e, seed_c, t, goal_e, goal_c, dist, par, stamp, gen, hk, hn):
    """Dijkstra (``scale`` 0) or A* (the chord to ``t`` times ``scale``)
    over the edges from seeds (being on edge ``seed_e[i]`` at
    ``seed_c[i]``: a junction's edges out at their cost, or a phantom's
    edge at the cost of its rest) to junction ``t`` or onto one of the
    goal edges ``goal_e[k]`` (reached by turning onto it at its tail, then
    ``goal_c[k]`` along it); -1: none of either, every edge is settled.
    Returns ``(cost, last edge driven whole, goal index or -1 for t,
    settled)``. Labels per edge: ``dist``/``par`` hold this search's where
    ``stamp == 2 * gen`` (open) or ``2 * gen + 1`` (settled), so a search
    starts without clearing them; ``hk``/``hn``: a lazy heap with room for
    a push per (edge, edge) move and per seed."""
    size = 0
    aim = t if t >= 0 else 0
    closed = 2 * gen + 1
    for i in range(seed_e.shape[0]):
        f = seed_e[i]
        if f >= 0 and seed_c[i] < _dist(dist, stamp, f, gen) and walkable[targets[f]]:
            dist[f] = seed_c[i]
            par[f] = -1
            stamp[f] = 2 * gen
            push(hk, hn, size, seed_c[i] + _h(unit, scale, targets[f], aim), f)
            size += 1
    best = INF
    last = -1
    goal = -1
    settled = 0
    # the lazy heap's pop loop, written out as every search in the plugins
    # writes it: its six lines carry no logic of their own to share
    while size > 0:
        e = hn[0]
        key = hk[0]
        pop(hk, hn, size)
        size -= 1
        if stamp[e] == closed:
            continue
        if key >= best:
            break
        stamp[e] = closed
        settled += 1
        de = dist[e]
        v = targets[e]
        if v == t and de < best:
            best, last, goal = de, e, -1
        for k in range(goal_e.shape[0]):
            g = goal_e[k]
            if g >= 0 and edge_src[g] == v:
                d = de + turn_cost(t_off, t_to, t_cost, e, g) + goal_c[k]
                if d < best:
                    best, last, goal = d, e, k
        for f in range(offsets[v], offsets[v + 1]):
            if stamp[f] == closed:
                continue
            d = de + cost[f] + turn_cost(t_off, t_to, t_cost, e, f)
            w = targets[f]
            if d < _dist(dist, stamp, f, gen) and walkable[w]:
                dist[f] = d
                par[f] = e
                stamp[f] = 2 * gen
                push(hk, hn, size, d + _h(unit, scale, w, aim), f)
                size += 1
    return best, last, goal, settled


@njit(cache=True, nogil=True)
def _fresh(m, moves, seeds):
    """Labels and a heap for one search on a thread of its own (the
    many-ends kernels): ``(dist, par, stamp, hk, hn)``, generation 1."""
    return (np.empty(m, dtype=np.float64), np.empty(m, dtype=np.int64),
            np.zeros(m, dtype=np.int32), np.empty(moves + seeds + 1, dtype=np.float64),
            np.empty(moves + seeds + 1, dtype=np.int64))


@njit(cache=True, nogil=True)
def _end_seeds(offsets, cost, node, seed_e, seed_c):
    """The seeds of a search from an end: junction ``node``'s edges out at
    their cost, or (``node < 0``) the phantom's ``seed_e``/``seed_c``."""
    if node < 0:
        return seed_e, seed_c
    e = np.arange(offsets[node], offsets[node + 1])
    return e, cost[e]


@njit(cache=True, nogil=True)
def _enter(dist, stamp, edge_src, r_off, r_eid, t_off, t_to, t_cost, source, g, c):
    """Cost of turning onto edge ``g`` at its tail and ``c`` along it, from
    the edges a search of generation 1 settled (0 before ``c`` when it
    began at junction ``source``, the tail itself)."""
    u = edge_src[g]
    best = c if source == u else INF
    for k in range(r_off[u], r_off[u + 1]):
        e = r_eid[k]
        d = _dist(dist, stamp, e, 1) + turn_cost(t_off, t_to, t_cost, e, g) + c
        if d < best:
            best = d
    return best


@njit(cache=True, nogil=True, parallel=True)
def ends_matrix(offsets, targets, cost, edge_src, walkable, t_off, t_to, t_cost, r_off, r_eid,
                src_node, seed_e, seed_c, tgt_node, goal_e, goal_c, moves, out):
    """``out[i, j]``: cost from end ``i`` (junction ``src_node[i]``, or
    with ``src_node[i] < 0`` a phantom on edges ``seed_e[i]`` with the
    rest of them ``seed_c[i]``) to end ``j`` (junction ``tgt_node[j]``, or
    a phantom on edges ``goal_e[j]`` at ``goal_c[j]`` from their tails),
    a search per row over the threads (costs along one edge: the caller's)."""
    m = targets.shape[0]
    none = np.full(1, -1, dtype=np.int64)
    for i in prange(src_node.shape[0]):
        s = src_node[i]
        se, sc = _end_seeds(offsets, cost, s, seed_e[i], seed_c[i])
        dist, par, stamp, hk, hn = _fresh(m, moves, se.shape[0])
        between_ends(offsets, targets, cost, edge_src, walkable, t_off, t_to, t_cost,
                     np.zeros((1, 3)), 0.0, se, sc, -1, none, np.full(1, INF), dist, par,
                     stamp, 1, hk, hn)
        for j in range(tgt_node.shape[0]):
            y = tgt_node[j]
            best = INF
            if y >= 0:
                if y == s:
                    best = 0.0
                for k in range(r_off[y], r_off[y + 1]):
                    d = _dist(dist, stamp, r_eid[k], 1)
                    if d < best:
                        best = d
            else:
                for b in range(goal_e.shape[1]):
                    if goal_e[j, b] >= 0 and goal_c[j, b] < INF:
                        d = _enter(dist, stamp, edge_src, r_off, r_eid, t_off, t_to, t_cost,
                                   s, goal_e[j, b], goal_c[j, b])
                        if d < best:
                            best = d
            out[i, j] = best


@njit(cache=True, nogil=True, parallel=True)
def ends_pairs(offsets, targets, cost, edge_src, walkable, t_off, t_to, t_cost, src_node,
               seed_e, seed_c, tgt_node, goal_e, goal_c, moves, out):
    """``out[i]``: cost from end ``i`` to end ``i`` of the targets (as
    ``ends_matrix`` gives them), a search per pair that stops at its goal,
    over the threads."""
    m = targets.shape[0]
    for i in prange(src_node.shape[0]):
        s, y = src_node[i], tgt_node[i]
        if s >= 0 and s == y:
            out[i] = 0.0
            continue
        se, sc = _end_seeds(offsets, cost, s, seed_e[i], seed_c[i])
        dist, par, stamp, hk, hn = _fresh(m, moves, se.shape[0])
        best = between_ends(offsets, targets, cost, edge_src, walkable, t_off, t_to, t_cost,
                            np.zeros((1, 3)), 0.0, se, sc, y, goal_e[i], goal_c[i], dist, par,
                            stamp, 1, hk, hn)[0]
        if y < 0 and s >= 0:             # onto a goal edge leaving the start junction
            for b in range(goal_e.shape[1]):
                g = goal_e[i, b]
                if g >= 0 and edge_src[g] == s and goal_c[i, b] < best:
                    best = goal_c[i, b]
        out[i] = best
