"""numba kernels of the one-node contraction order (private; see
``contraction.py``, which turns its upward edges into the arrays of a
``hierarchy.DirectedHierarchy``: queries, files and many-to-many are that
structure's, for every graph).

Build (``ch_build``), for graphs whose edges cost the same both ways:
nodes are contracted one at a time, cheapest first.
While contracting, each remaining node keeps its edges to other remaining
nodes in a list of its own inside one pool (``start``/``deg``/``cap`` per
node; a full list moves to the end of the pool with twice the room). When
``v`` is contracted its list, which then holds only nodes contracted later,
becomes its *upward* edges (``up_*`` arrays, written in contraction order),
and a shortcut ``u - w`` is added for each pair of its neighbours whose
shortest connection runs through ``v`` (no witness path of at most that
length found by a bounded Dijkstra that avoids ``v``).

A shortcut remembers the two upward edges of ``v`` it stands for
(``c1``: ``v -> u``, ``c2``: ``v -> w``), so unpacking a path never
searches an edge list. The graph is undirected: every edge is one entry in
each endpoint's list with the same cost.

Priority (as in RoutingKit's CH): ``level + added / removed edges + added /
removed hops``, where a node's level is one more than the highest level of
its contracted neighbours and hops count the original edges a shortcut
stands for. Priorities are refreshed lazily: the node at the top of the
queue is simulated again with a cheap witness search (``check_limit``
settled nodes) and goes back if it got dearer; only the node actually
contracted gets the full search (``limit``). Measured on 25%-random grids
and an open city map (2026-11-24), against re-simulating every neighbour
of a contracted node or raising their keys by their new level: the same or
better queries for a third to a half of the build time; with the full
search for the check too, open maps spent minutes re-queueing.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from navcore._kernels import lazy_push as heap_push, lazy_take

from ._ch import grown

INF = np.inf
#: a witness found this much longer than the path through ``v`` still
#: counts: equal-length detours summed in another order may differ by an ulp
_TIE = 1e-12


# not shared with _ch._witness (see there: one kernel for both was slower)
@njit(cache=True, nogil=True)
def witness(src, skip, maxd, limit, start, deg, nbr, wt, dist, stamp, gen, hk, hn,
             tmark, targets, work):
    """Bounded Dijkstra from ``src`` over the remaining graph, never
    entering ``skip``: stops past distance ``maxd``, after ``limit``
    settled nodes, or once the ``targets`` nodes marked ``tmark[x] == gen``
    are all settled. ``dist[x]`` is valid where ``stamp[x] == gen``."""
    dist[src] = 0.0
    stamp[src] = gen
    hk[0] = 0.0
    hn[0] = src
    size = 1
    settled = 0
    cap = hk.shape[0]
    while size > 0:
        d, x, size = lazy_take(hk, hn, size)
        if d > dist[x]:
            continue                       # a stale entry
        if d > maxd:
            break
        settled += 1
        if settled > limit:
            break
        if tmark[x] == gen:
            targets -= 1
            if targets == 0:
                break
        b = start[x]
        for i in range(b, b + deg[x]):
            y = nbr[i]
            if y == skip:
                continue
            nd = d + wt[i]
            if nd > maxd:
                continue
            if stamp[y] != gen or nd < dist[y]:
                if size >= cap:
                    work[2] += settled
                    return                 # out of room: fewer witnesses, more shortcuts
                dist[y] = nd
                stamp[y] = gen
                heap_push(hk, hn, size, nd, y)
                size += 1
    work[2] += settled


@njit(cache=True, nogil=True)
def simulate(v, limit, level, start, deg, nbr, wt, hops, dist, stamp, gen, hk, hn, need,
              tmark, work):
    """Contract ``v`` in thought: mark in ``need[i * d + j]`` (i < j) the
    neighbour pairs that need a shortcut. Returns ``(priority, shortcuts,
    generation used up to)``."""
    work[0] += 1
    b = start[v]
    d = deg[v]
    if d == 0:
        return float(level[v]), 0, gen
    added = 0
    added_hops = 0
    removed_hops = 0
    for i in range(d):
        removed_hops += hops[b + i]
        if i == d - 1:
            break
        u = nbr[b + i]
        wu = wt[b + i]
        gen += 1
        wmax = 0.0                 # no witness for this search's targets is longer
        for j in range(i + 1, d):
            tmark[nbr[b + j]] = gen
            if wt[b + j] > wmax:
                wmax = wt[b + j]
        witness(u, v, (wu + wmax) * (1.0 + _TIE), limit, start, deg, nbr, wt, dist, stamp,
                 gen, hk, hn, tmark, d - 1 - i, work)
        work[1] += 1
        for j in range(i + 1, d):
            w = nbr[b + j]
            via = wu + wt[b + j]
            if stamp[w] == gen and dist[w] <= via * (1.0 + _TIE):
                need[i * d + j] = False
            else:
                need[i * d + j] = True
                added += 1
                added_hops += hops[b + i] + hops[b + j]
    prio = level[v] + added / d + added_hops / max(removed_hops, 1)
    return prio, added, gen


@njit(cache=True, nogil=True)
def remove_entry(u, x, start, deg, nbr, wt, hops, c1, c2):
    """Drop ``x`` from ``u``'s list (swap with the last entry)."""
    b = start[u]
    last = b + deg[u] - 1
    for i in range(b, last + 1):
        if nbr[i] == x:
            nbr[i] = nbr[last]
            wt[i] = wt[last]
            hops[i] = hops[last]
            c1[i] = c1[last]
            c2[i] = c2[last]
            deg[u] -= 1
            return


@njit(cache=True, nogil=True)
def iheap_down(key, pos, heap, size, i):
    """Sift entry ``i`` of the indexed heap (nodes ``heap``, their
    positions ``pos``, keys by node ``key``) down."""
    node = heap[i]
    k = key[node]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and key[heap[c + 1]] < key[heap[c]]:
            c += 1
        q = heap[c]
        if key[q] >= k:
            break
        heap[i] = q
        pos[q] = i
        i = c
    heap[i] = node
    pos[node] = i


@njit(cache=True, nogil=True)
def grown5(size, keep, a, b, c, d, e):
    """Five arrays, each copied into room for ``size`` entries, the first
    ``keep`` kept (``_ch.grown``)."""
    return (grown(a, size, keep), grown(b, size, keep), grown(c, size, keep),
            grown(d, size, keep), grown(e, size, keep))


@njit(cache=True, nogil=True, inline="always")
def _arc_columns(size):
    """Room for ``size`` arcs: ``(head, weight, hops, child 1, child 2)``
    (int32, float64, int32, int64, int64)."""
    return (np.empty(size, dtype=np.int32), np.empty(size, dtype=np.float64),
            np.empty(size, dtype=np.int32), np.empty(size, dtype=np.int64),
            np.empty(size, dtype=np.int64))


@njit(cache=True, nogil=True)
def ch_build(offsets, targets, cost, limit, check_limit):
    """Contract every node of the undirected graph (CSR, inf = no edge).

    Returns ``(rank, up_begin, up_end, up_tgt, up_src, up_w, up_c1, up_c2,
    up_hops, shortcuts)``: node ``v``'s upward edges are ``up_begin[v]``
    to ``up_end[v]``; an edge's ``up_c1``/``up_c2`` are the upward edges
    of the contracted node it bypasses (-1 for an edge of the graph).
    """
    n = offsets.shape[0] - 1
    # -- the remaining graph, one list per node in a growing pool --------------
    start = np.empty(n, dtype=np.int64)
    deg = np.zeros(n, dtype=np.int64)
    cap = np.empty(n, dtype=np.int64)
    room = 0
    for u in range(n):
        start[u] = room
        cap[u] = 2 * (offsets[u + 1] - offsets[u]) + 2
        room += cap[u]
    nbr, wt, hops, c1, c2 = _arc_columns(max(2 * room, 1024))
    top = room
    for u in range(n):
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            c = cost[e]
            if v == u or not c < INF:
                continue
            b = start[u]
            found = False
            for i in range(b, b + deg[u]):       # duplicates: the cheapest
                if nbr[i] == v:
                    if c < wt[i]:
                        wt[i] = c
                    found = True
                    break
            if not found:
                i = b + deg[u]
                nbr[i] = v
                wt[i] = c
                hops[i] = 1
                c1[i] = -1
                c2[i] = -1
                deg[u] += 1
    # -- scratch ------------------------------------------------------------------
    dist = np.empty(n, dtype=np.float64)
    stamp = np.zeros(n, dtype=np.int64)
    tmark = np.zeros(n, dtype=np.int64)
    # simulations, witness searches, nodes they settled, queue re-inserts
    work = np.zeros(4, dtype=np.int64)
    gen = 0
    hcap = 1 << 16
    hk = np.empty(hcap, dtype=np.float64)
    hn = np.empty(hcap, dtype=np.int32)
    need = np.zeros(64, dtype=np.bool_)
    level = np.zeros(n, dtype=np.int64)
    # -- the queue of nodes by priority ----------------------------------------
    prio = np.empty(n, dtype=np.float64)
    pos = np.empty(n, dtype=np.int64)
    heap = np.empty(n, dtype=np.int64)
    for v in range(n):
        d = deg[v]
        if d * d > need.shape[0]:
            need = np.zeros(2 * d * d, dtype=np.bool_)
        prio[v], _, gen = simulate(v, check_limit, level, start, deg, nbr, wt, hops, dist,
                                    stamp, gen, hk, hn, need, tmark, work)
        heap[v] = v
        pos[v] = v
    qsize = n
    for i in range(n // 2 - 1, -1, -1):
        iheap_down(prio, pos, heap, qsize, i)
    # -- the upward graph, written in contraction order -----------------------
    ucap = max(2 * room, 1024)
    up_tgt, up_w, up_hops, up_c1, up_c2 = _arc_columns(ucap)
    up_src = np.empty(ucap, dtype=np.int32)
    up_begin = np.empty(n, dtype=np.int64)
    up_end = np.empty(n, dtype=np.int64)
    nup = 0
    rank = np.empty(n, dtype=np.int32)
    contracted = np.zeros(n, dtype=np.bool_)
    order = 0
    shortcuts = 0
    while qsize > 0:
        v = heap[0]
        d = deg[v]
        if d * d > need.shape[0]:
            need = np.zeros(2 * d * d, dtype=np.bool_)
        p, added, gen = simulate(v, check_limit, level, start, deg, nbr, wt, hops, dist,
                                  stamp, gen, hk, hn, need, tmark, work)
        if p > prio[v] and qsize > 1:
            prio[v] = p                  # got dearer since it was queued: try later
            work[3] += 1
            iheap_down(prio, pos, heap, qsize, 0)
            continue
        if limit != check_limit:     # the shortcuts themselves: the full witness search
            p, added, gen = simulate(v, limit, level, start, deg, nbr, wt, hops, dist,
                                      stamp, gen, hk, hn, need, tmark, work)
        # take v off the queue
        qsize -= 1
        if qsize > 0:
            last = heap[qsize]
            heap[0] = last
            pos[last] = 0
            iheap_down(prio, pos, heap, qsize, 0)
        contracted[v] = True
        rank[v] = order
        order += 1
        # room: v's upward edges, and each neighbour's list may move once
        want = d
        for i in range(start[v], start[v] + d):
            want += 2 * cap[nbr[i]] + d
        if top + want > nbr.shape[0]:
            nbr, wt, hops, c1, c2 = grown5(max(2 * nbr.shape[0], top + want), top, nbr,
                                           wt, hops, c1, c2)
        if nup + d > up_tgt.shape[0]:
            grow = max(2 * up_tgt.shape[0], nup + d)
            up_tgt, up_src, up_w, up_c1, up_c2 = grown5(grow, nup, up_tgt, up_src, up_w,
                                                        up_c1, up_c2)
            up_hops = grown(up_hops, grow, nup)
        # v's remaining edges become its upward edges
        b = start[v]
        up_begin[v] = nup
        for i in range(b, b + d):
            up_tgt[nup] = nbr[i]
            up_src[nup] = v
            up_w[nup] = wt[i]
            up_c1[nup] = c1[i]
            up_c2[nup] = c2[i]
            up_hops[nup] = hops[i]
            nup += 1
        up_end[v] = nup
        base = up_begin[v]
        # shortcuts between the neighbour pairs that need one
        for i in range(d - 1):
            for j in range(i + 1, d):
                if not need[i * d + j]:
                    continue
                via = up_w[base + i] + up_w[base + j]
                h = up_hops[base + i] + up_hops[base + j]
                for side in range(2):
                    if side == 0:
                        u = up_tgt[base + i]
                        w = up_tgt[base + j]
                        a = base + i          # v -> u
                        z = base + j          # v -> w
                    else:
                        u = up_tgt[base + j]
                        w = up_tgt[base + i]
                        a = base + j
                        z = base + i
                    bu = start[u]
                    hit = -1
                    for k in range(bu, bu + deg[u]):
                        if nbr[k] == w:
                            hit = k
                            break
                    if hit >= 0:
                        if via < wt[hit]:
                            wt[hit] = via
                            hops[hit] = h
                            c1[hit] = a
                            c2[hit] = z
                        continue
                    if deg[u] == cap[u]:         # full: move to the end, room for all d
                        nb = top
                        for k in range(deg[u]):
                            nbr[nb + k] = nbr[bu + k]
                            wt[nb + k] = wt[bu + k]
                            hops[nb + k] = hops[bu + k]
                            c1[nb + k] = c1[bu + k]
                            c2[nb + k] = c2[bu + k]
                        start[u] = nb
                        cap[u] = 2 * cap[u] + d
                        top += cap[u]
                        bu = nb
                    k = bu + deg[u]
                    nbr[k] = w
                    wt[k] = via
                    hops[k] = h
                    c1[k] = a
                    c2[k] = z
                    deg[u] += 1
                    if side == 0:
                        shortcuts += 1
        # the neighbours forget v and rise a level (their keys catch up
        # when they reach the top of the queue)
        for i in range(d):
            u = up_tgt[base + i]
            remove_entry(u, v, start, deg, nbr, wt, hops, c1, c2)
            if level[v] + 1 > level[u]:
                level[u] = level[v] + 1
    return (rank, up_begin, up_end, up_tgt[:nup].copy(), up_src[:nup].copy(),
            up_w[:nup].copy(), up_c1[:nup].copy(), up_c2[:nup].copy(),
            up_hops[:nup].copy(), shortcuts, work)


@njit(cache=True, nogil=True)
def asymmetric_edge(offsets, targets, cost, walkable):
    """The first edge ``u -> v`` between walkable nodes whose cost differs
    from ``v -> u`` (a missing reverse edge counts as inf), as ``(u, v)``;
    ``(-1, -1)`` when every edge costs the same both ways."""
    n = offsets.shape[0] - 1
    for u in range(n):
        if not walkable[u]:
            continue
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            if v == u or not walkable[v]:
                continue
            back = INF
            for f in range(offsets[v], offsets[v + 1]):
                if targets[f] == u and cost[f] < back:
                    back = cost[f]
            there = INF
            for f in range(offsets[u], offsets[u + 1]):   # duplicates: the cheapest
                if targets[f] == v and cost[f] < there:
                    there = cost[f]
            if there != back:
                return u, v
    return -1, -1


@njit(cache=True, nogil=True)
def walkable_costs(offsets, targets, cost, walkable):
    """``cost`` with inf on every edge that touches a node not walkable."""
    out = cost.copy()
    n = offsets.shape[0] - 1
    for u in range(n):
        for e in range(offsets[u], offsets[u + 1]):
            if not (walkable[u] and walkable[targets[e]]):
                out[e] = INF
    return out
