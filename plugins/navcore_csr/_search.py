"""numba search kernels over CSR arrays (private; see ``search.py``).

Node state lives in one int32 ``stamp`` array per scratch set
(generation-stamped, ``navcore._kernels``): ``stamp[v] == 2*gen`` means
open (in the heap), ``2*gen + 1`` closed, anything lower unseen; a new
query bumps ``gen`` and clears nothing. The heap is the indexed binary
heap of ``navcore._kernels`` (decrease-key) on preallocated arrays.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# astar's registers are a resumable search's (navcore._kernels); the names
# stay importable from here for the callers
from navcore._kernels import (R_BEST, R_EXPANDED, R_SIZE, R_TRACK, REGISTERS,  # noqa: F401
                              finish, heap_place, heap_pop, heap_push, pause, resume)

INF = np.inf
H_ZERO, H_EUCLIDEAN, H_MANHATTAN, H_OCTILE = 0, 1, 2, 3
_SQRT2_M1 = math.sqrt(2.0) - 1.0


@njit(cache=True, nogil=True)
def _far_euclidean(pos, v, gx, gy, gz):
    """The distance from node ``v`` to ``(gx, gy, gz)`` when its square
    overflows float64 (coordinates beyond ~1e154): from halved coordinates
    (whose differences cannot overflow) divided by the largest, so it is
    finite whenever the distance itself is."""
    ax = abs(0.5 * pos[v, 0] - 0.5 * gx)
    ay = abs(0.5 * pos[v, 1] - 0.5 * gy)
    az = abs(0.5 * pos[v, 2] - 0.5 * gz) if pos.shape[1] > 2 else 0.0
    m = max(ax, ay, az)
    x, y, z = ax / m, ay / m, az / m
    return 2.0 * m * math.sqrt(x * x + y * y + z * z)


@njit(cache=True, nogil=True, inline="always")
def heuristic(pos, v, gx, gy, gz, kind, scale):
    if kind == H_ZERO:
        return 0.0
    dx = abs(pos[v, 0] - gx)
    dy = abs(pos[v, 1] - gy)
    dz = abs(pos[v, 2] - gz) if pos.shape[1] > 2 else 0.0
    if kind == H_EUCLIDEAN:
        sq = dx * dx + dy * dy + dz * dz
        if sq < INF:
            return scale * math.sqrt(sq)
        return scale * _far_euclidean(pos, v, gx, gy, gz)
    if kind == H_MANHATTAN:
        return scale * (dx + dy + dz)
    lo = min(dx, dy)
    return scale * (max(dx, dy) + _SQRT2_M1 * lo + dz)


#: ``astar``'s cost when it stopped at its expansion budget (to be resumed)
PAUSED = -1.0
#: the positions of a search without them (a zero heuristic never reads them)
NO_POSITIONS = np.zeros((1, 2))


@njit(cache=True, nogil=True)
def astar(offsets, targets, cost, walkable, pos, hkind, hscale, start, goal,
          g, parent, stamp, hnode, hkey, hpos, gen, regs, budget):
    """A* (Dijkstra when ``hkind == H_ZERO``) from ``start`` to ``goal``,
    resumable: it closes at most ``budget`` nodes per call.

    Returns ``(cost, expanded)``: ``cost`` is inf when unreachable and
    ``PAUSED`` when the budget ran out first; ``expanded`` counts the
    search's closed nodes over all its calls. The path is left in
    ``parent``. A search begins when ``regs[R_EXPANDED] == -1`` (its
    registers: heap size, nodes closed, and with ``regs[R_TRACK]`` the
    closed node of least heuristic so far, ties to the earlier, for a
    partial path); later calls with the same arrays, ``gen`` and
    registers carry on exactly where it stopped. A finished search sets
    ``regs[R_EXPANDED]`` back to -1, so the registers are ready for the
    next search without a write from Python. The heuristic must be
    consistent (the wrapper scales it by the least cost per unit
    distance), so closed nodes are never reopened.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    gx = gy = gz = 0.0
    if hkind != H_ZERO:
        gx = pos[goal, 0]
        gy = pos[goal, 1]
        gz = pos[goal, 2] if pos.shape[1] > 2 else 0.0
    expanded, size, best, track = resume(regs)
    if expanded < 0:
        g[start] = 0.0
        parent[start] = -1
        stamp[start] = open_mark
        size = heap_push(hnode, hkey, hpos, 0, start,
                         heuristic(pos, start, gx, gy, gz, hkind, hscale))
        expanded = 0
    best_h = INF if best < 0 else heuristic(pos, best, gx, gy, gz, hkind, hscale)
    stop = expanded + budget
    while size > 0:
        if expanded >= stop:
            pause(regs, size, expanded, best)
            return PAUSED, expanded
        u, size = heap_pop(hnode, hkey, hpos, size)
        stamp[u] = closed_mark
        expanded += 1
        if track:
            h = heuristic(pos, u, gx, gy, gz, hkind, hscale)
            if h < best_h:
                best, best_h = u, h
        if u == goal:
            finish(regs, best)
            return g[u], expanded
        # written out here and in sssp: through one shared inline helper A*
        # took 1.6-3x as long (BENCHMARKS.md, "Shared kernel primitives")
        gu = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == closed_mark:
                continue
            w = cost[e]
            if not w < INF or not walkable[v]:
                continue
            ng = gu + w
            if sv == open_mark:
                if ng >= g[v]:
                    continue
                i = hpos[v]
                key = ng + (hkey[i] - g[v])  # same h, new g
            else:
                stamp[v] = open_mark
                key = ng + heuristic(pos, v, gx, gy, gz, hkind, hscale)
                i = size
                size += 1
            g[v] = ng
            parent[v] = u
            heap_place(hnode, hkey, hpos, i, v, key)
    finish(regs, best)
    return INF, expanded


@njit(cache=True, nogil=True)
def sssp(offsets, targets, cost, walkable, source, goals, out,
          g, parent, stamp, mark, hnode, hkey, hpos, gen):
    """Dijkstra from ``source``; ``out[j]`` gets the distance to ``goals[j]``.

    Stops once every goal is settled. With ``goals`` empty it settles every
    reachable node (one-to-all; ``g`` and ``stamp`` hold the answer).
    Returns the number of nodes closed.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    remaining = 0
    for j in range(goals.shape[0]):
        t = goals[j]
        if mark[t] != gen:
            mark[t] = gen
            remaining += 1
    all_nodes = goals.shape[0] == 0
    g[source] = 0.0
    parent[source] = -1
    stamp[source] = open_mark
    size = heap_push(hnode, hkey, hpos, 0, source, 0.0)
    expanded = 0
    while size > 0:
        u, size = heap_pop(hnode, hkey, hpos, size)
        stamp[u] = closed_mark
        expanded += 1
        if not all_nodes and mark[u] == gen:
            remaining -= 1
            if remaining == 0:
                break
        gu = g[u]
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == closed_mark:
                continue
            w = cost[e]
            if not w < INF or not walkable[v]:
                continue
            ng = gu + w
            if sv == open_mark:
                if ng >= g[v]:
                    continue
                i = hpos[v]
            else:
                stamp[v] = open_mark
                i = size
                size += 1
            g[v] = ng
            parent[v] = u
            heap_place(hnode, hkey, hpos, i, v, ng)
    for j in range(goals.shape[0]):
        t = goals[j]
        out[j] = g[t] if stamp[t] == closed_mark else INF
    return expanded


@njit(cache=True, nogil=True)
def scratch_arrays(n):
    """A search's per-node arrays for ``n`` nodes: ``(g, parent, stamp,
    mark, hnode, hkey, hpos)``, the stamps at 0 (nothing seen)."""
    return (np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int32),
            np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32),
            np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.int32))


@njit(cache=True, nogil=True, parallel=True)
def matrix_rows(offsets, targets, cost, walkable, rows, cols, out, nchunks):
    """``out[i, j]``: cost from ``rows[i]`` to ``cols[j]``, one early-exit
    :func:`sssp` per row; the rows split into ``nchunks`` ranges run in
    parallel, each with labels of its own (made once per call, not per
    row). Rows that are not walkable are left as they are (inf)."""
    n = offsets.shape[0] - 1
    chunk = (rows.shape[0] + nchunks - 1) // nchunks
    for c in prange(nchunks):
        g, parent, stamp, mark, hnode, hkey, hpos = scratch_arrays(n)
        for i in range(c * chunk, min(rows.shape[0], (c + 1) * chunk)):
            r = rows[i]
            if walkable[r]:
                sssp(offsets, targets, cost, walkable, r, cols, out[i], g, parent, stamp,
                     mark, hnode, hkey, hpos, i - c * chunk + 1)


@njit(cache=True, nogil=True)
def bfs(offsets, targets, cost, walkable, start, goal, parent, stamp, queue, gen):
    """Breadth-first search over usable edges (finite cost, walkable head).

    Returns ``(hops, expanded)``; ``hops`` is -1 when ``goal`` is not
    reached. ``goal == -1`` visits the whole component (``stamp == 2*gen``
    marks it). ``parent`` holds the fewest-edges tree.
    """
    seen = 2 * gen
    stamp[start] = seen
    parent[start] = -1
    queue[0] = start
    head = 0
    tail = 1
    depth_end = 1
    depth = 0
    while head < tail:
        if head == depth_end:
            depth += 1
            depth_end = tail
        u = queue[head]
        head += 1
        if u == goal:
            return depth, head
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            if stamp[v] == seen or not cost[e] < INF or not walkable[v]:
                continue
            stamp[v] = seen
            parent[v] = u
            queue[tail] = v
            tail += 1
    return -1, head


@njit(cache=True, nogil=True)
def trace(parent, goal):
    """The path ending at ``goal`` following ``parent`` links, start first."""
    k = 0
    v = goal
    while v != -1:
        k += 1
        v = parent[v]
    out = np.empty(k, dtype=np.int32)
    v = goal
    for i in range(k - 1, -1, -1):
        out[i] = v
        v = parent[v]
    return out


@njit(cache=True, nogil=True)
def path_costs(offsets, targets, cost, walkable, nodes, starts, out):
    """``out[i]``: cost of walking path ``i`` (``nodes[starts[i]:starts[i+1]]``)
    over the cheapest edge between each pair; inf when a node is blocked
    or a pair has no usable edge."""
    for i in range(starts.shape[0] - 1):
        total = 0.0
        for j in range(starts[i], starts[i + 1]):
            u = nodes[j]
            if not walkable[u]:
                total = INF
                break
            if j + 1 == starts[i + 1]:
                break
            v = nodes[j + 1]
            best = INF
            for e in range(offsets[u], offsets[u + 1]):
                if targets[e] == v and cost[e] < best:
                    best = cost[e]
            total += best
            if not total < INF:
                break
        out[i] = total


@njit(cache=True, nogil=True, parallel=True)
def reach_counts(offsets, targets, cost, walkable, nchunks, out):
    """``out[s]`` = number of nodes reachable from ``s`` (itself included).

    Data-oriented: the nodes are split into ``nchunks`` ranges run in
    parallel; each range owns one stamp array and
    one stack for all its searches, and a search bumps the stamp instead of
    clearing a visited set.
    """
    n = offsets.shape[0] - 1
    for c in prange(nchunks):
        lo = c * n // nchunks
        hi = (c + 1) * n // nchunks
        stamp = np.zeros(n, dtype=np.int32)
        stack = np.empty(n, dtype=np.int32)
        gen = 0
        for s in range(lo, hi):
            if not walkable[s]:
                out[s] = 0
                continue
            gen += 1
            stamp[s] = gen
            stack[0] = s
            top = 1
            count = 0
            while top > 0:
                top -= 1
                u = stack[top]
                count += 1
                for e in range(offsets[u], offsets[u + 1]):
                    v = targets[e]
                    if stamp[v] != gen and cost[e] < INF and walkable[v]:
                        stamp[v] = gen
                        stack[top] = v
                        top += 1
            out[s] = count


@njit(cache=True, nogil=True)
def min_cost_per_distance(offsets, targets, cost, pos, kind):
    """Least ``cost / distance`` over usable edges: the factor that makes a
    distance heuristic admissible and consistent on this graph (0 when an
    edge moves without costing, inf when no edge moves at all)."""
    n = offsets.shape[0] - 1
    best = INF
    for u in range(n):
        for e in range(offsets[u], offsets[u + 1]):
            w = cost[e]
            if not w < INF:
                continue
            v = targets[e]
            d = heuristic(pos, u, pos[v, 0], pos[v, 1],
                           pos[v, 2] if pos.shape[1] > 2 else 0.0, kind, 1.0)
            if d > 0.0:
                r = w / d
                if r < best:
                    best = r
    return best
