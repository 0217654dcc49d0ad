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


@njit(cache=True, nogil=True)
def _push(hk, hn, size, key, e):
    i = size
    hk[i] = key
    hn[i] = e
    while i > 0:
        p = (i - 1) >> 1
        if hk[p] <= hk[i]:
            break
        hk[p], hk[i] = hk[i], hk[p]
        hn[p], hn[i] = hn[i], hn[p]
        i = p
    return size + 1


@njit(cache=True, nogil=True)
def _pop(hk, hn, size):
    size -= 1
    hk[0] = hk[size]
    hn[0] = hn[size]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= size:
            break
        b = a + 1
        c = b if b < size and hk[b] < hk[a] else a
        if hk[i] <= hk[c]:
            break
        hk[c], hk[i] = hk[i], hk[c]
        hn[c], hn[i] = hn[i], hn[c]
        i = c
    return size


@njit(cache=True, nogil=True)
def forward(offsets, targets, cost, walkable, t_off, t_to, t_cost, unit, scale, s, t,
            moves, dist, par, done):
    """Dijkstra (``scale`` 0) or A* (chord to ``t`` times ``scale``) over
    the edges from junction ``s``: ``dist[e]``/``par[e]`` for every edge
    settled. With ``t >= 0`` it stops at the first edge into ``t`` and
    returns ``(cost, that edge, settled)``; with ``t < 0`` it settles all
    and returns ``(inf, -1, settled)``. ``dist``/``par``/``done`` are
    per edge and reset here; ``moves``: how many (edge, edge) moves the
    graph has (each pushes at most once onto the lazy heap)."""
    dist[:] = INF
    par[:] = -1
    done[:] = False
    hk = np.empty(moves + offsets[s + 1] - offsets[s] + 1, dtype=np.float64)
    hn = np.empty(hk.shape[0], dtype=np.int64)
    size = 0
    goal = t if t >= 0 else 0
    for f in range(offsets[s], offsets[s + 1]):
        d = cost[f]
        v = targets[f]
        if d < dist[f] and walkable[v]:
            dist[f] = d
            size = _push(hk, hn, size, d + _h(unit, scale, v, goal), f)
    settled = 0
    while size > 0:
        e = hn[0]
        size = _pop(hk, hn, size)
        if done[e]:
            continue
        done[e] = True
        settled += 1
        v = targets[e]
        if v == t:
            return dist[e], e, settled
        de = dist[e]
        for f in range(offsets[v], offsets[v + 1]):
            if done[f]:
                continue
            d = de + cost[f] + turn_cost(t_off, t_to, t_cost, e, f)
            w = targets[f]
            if d < dist[f] and walkable[w]:
                dist[f] = d
                par[f] = e
                size = _push(hk, hn, size, d + _h(unit, scale, w, goal), f)
    return INF, -1, settled


@njit(cache=True, nogil=True)
def bidirectional(offsets, targets, cost, edge_src, r_off, r_eid, walkable, t_off, t_to,
                  t_cost, s, t, moves, dist, par, done):
    """Bidirectional Dijkstra over the edges from junction ``s`` to
    junction ``t`` (``s != t``). Forward labels (row 0) include the edge's
    own cost; backward labels (row 1) are the cost from the edge's head to
    ``t``. Returns ``(cost, meeting edge, settled)``; ``par[1]`` points to
    the next edge of the route."""
    m = targets.shape[0]
    for side in range(2):
        dist[side, :] = INF
        par[side, :] = -1
        done[side, :] = False
    hk = np.empty((2, moves + m + 1), dtype=np.float64)
    hn = np.empty((2, moves + m + 1), dtype=np.int64)
    size = np.zeros(2, dtype=np.int64)
    for f in range(offsets[s], offsets[s + 1]):
        if cost[f] < dist[0, f] and walkable[targets[f]]:
            dist[0, f] = cost[f]
            size[0] = _push(hk[0], hn[0], size[0], cost[f], f)
    for k in range(r_off[t], r_off[t + 1]):
        e = r_eid[k]
        if dist[1, e] > 0.0 and walkable[edge_src[e]]:
            dist[1, e] = 0.0
            size[1] = _push(hk[1], hn[1], size[1], 0.0, e)
    best = INF
    meet = -1
    settled = 0
    while size[0] > 0 and size[1] > 0:
        if hk[0, 0] + hk[1, 0] >= best:
            break
        side = 0 if hk[0, 0] <= hk[1, 0] else 1
        e = hn[side, 0]
        size[side] = _pop(hk[side], hn[side], size[side])
        if done[side, e]:
            continue
        done[side, e] = True
        settled += 1
        de = dist[side, e]
        if dist[1 - side, e] < INF and de + dist[1 - side, e] < best:
            best = de + dist[1 - side, e]
            meet = e
        if side == 0:
            v = targets[e]
            for f in range(offsets[v], offsets[v + 1]):
                d = de + cost[f] + turn_cost(t_off, t_to, t_cost, e, f)
                if d < dist[0, f] and walkable[targets[f]]:
                    dist[0, f] = d
                    par[0, f] = e
                    size[0] = _push(hk[0], hn[0], size[0], d, f)
                    if dist[1, f] < INF and d + dist[1, f] < best:
                        best = d + dist[1, f]
                        meet = f
        else:
            u = edge_src[e]
            for k in range(r_off[u], r_off[u + 1]):
                p = r_eid[k]
                d = de + cost[e] + turn_cost(t_off, t_to, t_cost, p, e)
                if d < dist[1, p] and walkable[edge_src[p]]:
                    dist[1, p] = d
                    par[1, p] = e
                    size[1] = _push(hk[1], hn[1], size[1], d, p)
                    if dist[0, p] < INF and d + dist[0, p] < best:
                        best = d + dist[0, p]
                        meet = p
    return best, meet, settled


@njit(cache=True, nogil=True)
def trace(par, meet):
    """The edges of a route: back along ``par[0]`` from ``meet``, then on
    along ``par[1]`` (all -1 for a one-directional search)."""
    k = 0
    e = meet
    while e >= 0:
        k += 1
        e = par[0, e]
    j = 0
    e = par[1, meet]
    while e >= 0:
        j += 1
        e = par[1, e]
    out = np.empty(k + j, dtype=np.int64)
    e = meet
    for i in range(k - 1, -1, -1):
        out[i] = e
        e = par[0, e]
    e = par[1, meet]
    for i in range(k, k + j):
        out[i] = e
        e = par[1, e]
    return out


@njit(cache=True, nogil=True)
def _row(offsets, targets, cost, walkable, t_off, t_to, t_cost, r_off, r_eid, s, cols,
         moves, dist, par, done, out):
    """``out[j]``: cost from junction ``s`` to junction ``cols[j]`` (0 to
    itself), one search settling every edge."""
    no_unit = np.zeros((1, 3))
    forward(offsets, targets, cost, walkable, t_off, t_to, t_cost, no_unit, 0.0, s, -1,
            moves, dist, par, done)
    for j in range(cols.shape[0]):
        t = cols[j]
        best = 0.0 if t == s else INF
        if t != s:
            for k in range(r_off[t], r_off[t + 1]):
                d = dist[r_eid[k]]
                if d < best:
                    best = d
        out[j] = best


@njit(cache=True, nogil=True, parallel=True)
def matrix(offsets, targets, cost, walkable, t_off, t_to, t_cost, r_off, r_eid, rows, cols,
           moves, out):
    """``out[i, j]``: cost from ``rows[i]`` to ``cols[j]``, a search per
    row over the threads."""
    m = targets.shape[0]
    for i in prange(rows.shape[0]):
        dist = np.empty(m, dtype=np.float64)
        par = np.empty(m, dtype=np.int64)
        done = np.empty(m, dtype=np.bool_)
        _row(offsets, targets, cost, walkable, t_off, t_to, t_cost, r_off, r_eid, rows[i],
             cols, moves, dist, par, done, out[i])


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
        done = np.empty((2, m), dtype=np.bool_)
        out[i] = bidirectional(offsets, targets, cost, edge_src, r_off, r_eid, walkable,
                               t_off, t_to, t_cost, s, t, moves, dist, par, done)[0]


@njit(cache=True, nogil=True)
def between_ends(offsets, targets, cost, edge_src, walkable, t_off, t_to, t_cost, seed_e,
                 seed_c, t, goal_e, goal_c, moves, dist, par, done):
    """Dijkstra over the edges from seeds (being on edge ``seed_e[i]`` at
    ``seed_c[i]``: a junction's edges out at their cost, or a phantom's
    edge at the cost of its rest) to junction ``t`` (-1: none) or onto one
    of the goal edges ``goal_e[k]`` (-1: none; reached by turning onto it
    at its tail, then ``goal_c[k]`` along it). Returns ``(cost, last edge
    driven whole, goal index or -1 for t, settled)``."""
    dist[:] = INF
    par[:] = -1
    done[:] = False
    hk = np.empty(moves + seed_e.shape[0] + 1, dtype=np.float64)
    hn = np.empty(hk.shape[0], dtype=np.int64)
    size = 0
    for i in range(seed_e.shape[0]):
        f = seed_e[i]
        if f >= 0 and seed_c[i] < dist[f] and walkable[targets[f]]:
            dist[f] = seed_c[i]
            size = _push(hk, hn, size, seed_c[i], f)
    best = INF
    last = -1
    goal = -1
    settled = 0
    while size > 0:
        e = hn[0]
        size = _pop(hk, hn, size)
        if done[e]:
            continue
        de = dist[e]
        if de >= best:
            break
        done[e] = True
        settled += 1
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
            if done[f]:
                continue
            d = de + cost[f] + turn_cost(t_off, t_to, t_cost, e, f)
            w = targets[f]
            if d < dist[f] and walkable[w]:
                dist[f] = d
                par[f] = e
                size = _push(hk, hn, size, d, f)
    return best, last, goal, settled
