"""numba kernels of graph simplification (private; see ``simplify.py``).

Seed 001's idea on CSR arrays: nodes that only pass traffic through (two
distinct neighbours, edges that continue the same way) are *interior*;
every maximal run of them between two *kept* nodes is a chain, replaced in
the small graph by one edge per direction it can be walked. A chain that
ends in a leaf (a dead end) is *folded*: it gets no edge at all, because
no shortest path between two other nodes enters a dead end.

Only usable edges count: finite cost, both ends walkable, no self-loops.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._search import _heuristic

INF = np.inf
BLOCKED, KEPT, INTERIOR, LEAF, FOLDED = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def _classify(offsets, targets, cost, roffsets, rsources, reids, walkable, kind, nb1, nb2):
    """Set ``kind`` of every node and, for interior nodes and leaves, the
    distinct neighbours ``nb1`` / ``nb2``.

    Interior: exactly two distinct neighbours ``a``, ``b`` and either both
    directions to both (a two-way corridor) or in from one and out to the
    other only (a one-way corridor). Anything else is kept: a junction, a
    node where a one-way street meets a two-way one, a leaf, an isolated
    node.
    """
    n = offsets.shape[0] - 1
    for v in range(n):
        nb1[v] = -1
        nb2[v] = -1
        if not walkable[v]:
            kind[v] = BLOCKED
            continue
        a = -1
        b = -1
        cnt = 0
        oa = ob = ia = ib = False
        for e in range(offsets[v], offsets[v + 1]):
            u = targets[e]
            if u == v or not walkable[u] or not cost[e] < INF:
                continue
            if u == a:
                oa = True
            elif u == b:
                ob = True
            elif cnt == 0:
                a = u
                oa = True
                cnt = 1
            elif cnt == 1:
                b = u
                ob = True
                cnt = 2
            else:
                cnt = 3
                break
        if cnt < 3:
            for k in range(roffsets[v], roffsets[v + 1]):
                u = rsources[k]
                if u == v or not walkable[u] or not cost[reids[k]] < INF:
                    continue
                if u == a:
                    ia = True
                elif u == b:
                    ib = True
                elif cnt == 0:
                    a = u
                    ia = True
                    cnt = 1
                elif cnt == 1:
                    b = u
                    ib = True
                    cnt = 2
                else:
                    cnt = 3
                    break
        if cnt == 1:
            kind[v] = LEAF
            nb1[v] = a
        elif cnt == 2 and ((oa and ob and ia and ib)
                           or (ia and ob and not oa and not ib)
                           or (ib and oa and not ob and not ia)):
            kind[v] = INTERIOR
            nb1[v] = a
            nb2[v] = b
        else:
            kind[v] = KEPT


@njit(cache=True, nogil=True, inline="always")
def _edge_cost(offsets, targets, cost, u, v):
    best = INF
    for e in range(offsets[u], offsets[u + 1]):
        if targets[e] == v and cost[e] < best:
            best = cost[e]
    return best


@njit(cache=True, nogil=True)
def _walk(offsets, targets, cost, kind, nb1, nb2, a, x, fold, c, fill,
          node_chain, node_pos, chain_nodes, chain_fwd, chain_bwd,
          chain_a, chain_b, chain_fend, chain_bend):
    """Record chain ``c`` that leaves kept node ``a`` through ``x``;
    its nodes go to ``chain_nodes[fill:]``. Returns the new ``fill``."""
    chain_a[c] = a
    prev = a
    cur = x
    p = 0
    while kind[cur] == INTERIOR and node_chain[cur] == -1:
        chain_nodes[fill] = cur
        chain_fwd[fill] = _edge_cost(offsets, targets, cost, prev, cur)
        chain_bwd[fill] = _edge_cost(offsets, targets, cost, cur, prev)
        node_chain[cur] = c
        node_pos[cur] = p
        fill += 1
        p += 1
        nxt = nb1[cur] if nb1[cur] != prev else nb2[cur]
        prev = cur
        cur = nxt
    if fold and kind[cur] == LEAF and cur != a:
        # a dead end: the leaf joins the chain, which then has one end only
        chain_nodes[fill] = cur
        chain_fwd[fill] = _edge_cost(offsets, targets, cost, prev, cur)
        chain_bwd[fill] = _edge_cost(offsets, targets, cost, cur, prev)
        node_chain[cur] = c
        node_pos[cur] = p
        kind[cur] = FOLDED
        fill += 1
        chain_b[c] = -1
        chain_fend[c] = INF
        chain_bend[c] = INF
    else:
        chain_b[c] = cur
        chain_fend[c] = _edge_cost(offsets, targets, cost, prev, cur)
        chain_bend[c] = _edge_cost(offsets, targets, cost, cur, prev)
    return fill


@njit(cache=True, nogil=True)
def _chains(offsets, targets, cost, roffsets, rsources, reids, walkable, kind, nb1, nb2,
            node_chain, node_pos, chain_off, chain_nodes, chain_fwd, chain_bwd,
            chain_a, chain_b, chain_fend, chain_bend):
    """Walk every chain; returns ``(chains, chain node count)``.

    Pass 1 walks from junctions (folding dead ends), pass 2 from leaves
    (isolated paths keep both ends), pass 3 makes one node of every
    remaining ring kept and walks the ring from it.
    """
    n = offsets.shape[0] - 1
    c = 0
    fill = 0
    for sweep in range(3):
        for a in range(n):
            if sweep == 2:
                if kind[a] != INTERIOR or node_chain[a] != -1:
                    continue
                kind[a] = KEPT
            elif kind[a] != (KEPT if sweep == 0 else LEAF):
                continue
            fold = sweep == 0
            for side in range(2):
                lo = offsets[a] if side == 0 else roffsets[a]
                hi = offsets[a + 1] if side == 0 else roffsets[a + 1]
                for k in range(lo, hi):
                    x = targets[k] if side == 0 else rsources[k]
                    w = cost[k] if side == 0 else cost[reids[k]]
                    if x == a or not walkable[x] or not w < INF or node_chain[x] != -1:
                        continue
                    if not (kind[x] == INTERIOR or (fold and kind[x] == LEAF)):
                        continue
                    chain_off[c] = fill
                    fill = _walk(offsets, targets, cost, kind, nb1, nb2, a, x, fold, c,
                                 fill, node_chain, node_pos, chain_nodes, chain_fwd,
                                 chain_bwd, chain_a, chain_b, chain_fend, chain_bend)
                    c += 1
    chain_off[c] = fill
    return c, fill


@njit(cache=True, nogil=True)
def _sum_range(values, lo, hi):
    total = 0.0
    for i in range(lo, hi):
        total += values[i]
    return total


@njit(cache=True, nogil=True)
def _search(offsets, targets, cost, pos, hkind, hscale, gx, gy, gz,
            src, src_cost, dst, dst_cost, bound, g, pnode, pedge, stamp,
            hnode, hkey, hpos, gen):
    """A* over the simplified graph from up to two sources (``src`` with
    start costs ``src_cost``) to up to two targets (``dst`` with the cost
    still to pay from each to the real goal, ``dst_cost``).

    Stops when the least key reaches the best total so far, which starts at
    ``bound`` (a route inside one chain). Returns ``(best, target index or
    -1 if nothing beat the bound, expanded)``; the root of the path has
    ``pnode == -1 - source index``; ``pedge`` is scratch the search fills. The heuristic is consistent on the
    small graph because a chain edge costs at least the scaled distance
    between its ends.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    size = 0
    for k in range(src.shape[0]):
        s = src[k]
        if s < 0 or not src_cost[k] < INF:
            continue
        key = src_cost[k] + _heuristic(pos, s, gx, gy, gz, hkind, hscale)
        if stamp[s] == open_mark:   # both chain ends are one node (a ring)
            if src_cost[k] >= g[s]:
                continue
            i = hpos[s]
        else:
            stamp[s] = open_mark
            i = size
            size += 1
        g[s] = src_cost[k]
        pnode[s] = -1 - k
        pedge[s] = -1
        while i > 0:
            p = (i - 1) >> 1
            if hkey[p] <= key:
                break
            hnode[i] = hnode[p]
            hkey[i] = hkey[p]
            hpos[hnode[i]] = i
            i = p
        hnode[i] = s
        hkey[i] = key
        hpos[s] = i
    best = bound
    best_k = -1
    expanded = 0
    while size > 0:
        if hkey[0] >= best:
            break
        u = hnode[0]
        size -= 1
        if size > 0:
            last = hnode[size]
            lk = hkey[size]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= size:
                    break
                if c + 1 < size and hkey[c + 1] < hkey[c]:
                    c += 1
                if hkey[c] >= lk:
                    break
                hnode[i] = hnode[c]
                hkey[i] = hkey[c]
                hpos[hnode[i]] = i
                i = c
            hnode[i] = last
            hkey[i] = lk
            hpos[last] = i
        stamp[u] = closed_mark
        expanded += 1
        gu = g[u]
        for k in range(dst.shape[0]):
            if dst[k] == u and gu + dst_cost[k] < best:
                best = gu + dst_cost[k]
                best_k = k
        for e in range(offsets[u], offsets[u + 1]):
            v = targets[e]
            sv = stamp[v]
            if sv == closed_mark:
                continue
            ng = gu + cost[e]
            if sv == open_mark:
                if ng >= g[v]:
                    continue
                i = hpos[v]
                key = ng + (hkey[i] - g[v])
            else:
                stamp[v] = open_mark
                key = ng + _heuristic(pos, v, gx, gy, gz, hkind, hscale)
                i = size
                size += 1
            g[v] = ng
            pnode[v] = u
            pedge[v] = e
            while i > 0:
                p = (i - 1) >> 1
                if hkey[p] <= key:
                    break
                hnode[i] = hnode[p]
                hkey[i] = hkey[p]
                hpos[hnode[i]] = i
                i = p
            hnode[i] = v
            hkey[i] = key
            hpos[v] = i
    return best, best_k, expanded


@njit(cache=True, nogil=True)
def _trace(pnode, end):
    """Small-graph nodes from the search root to ``end`` and the root's
    source index."""
    count = 1
    v = end
    while pnode[v] >= 0:
        count += 1
        v = pnode[v]
    out = np.empty(count, dtype=np.int32)
    v = end
    for i in range(count - 1, -1, -1):
        out[i] = v
        if i > 0:
            v = pnode[v]
    return out, -1 - pnode[v]


@njit(cache=True, nogil=True)
def _expand_walk(path, kept, offsets, targets, cost, edge_chain, edge_rev,
                 chain_off, chain_nodes):
    """``path`` (small-graph ids) as the nodes of the graph below: each step
    takes the cheapest small edge between the two nodes (the one an
    optimal search used, or one that costs the same) and splices its chain
    in."""
    m = path.shape[0]
    best_e = np.empty(max(m - 1, 0), dtype=np.int64)
    count = m
    for i in range(m - 1):
        u = path[i]
        v = path[i + 1]
        best = INF
        be = -1
        for e in range(offsets[u], offsets[u + 1]):
            if targets[e] == v and cost[e] < best:
                best = cost[e]
                be = e
        best_e[i] = be
        c = edge_chain[be]
        if c >= 0:
            count += chain_off[c + 1] - chain_off[c]
    out = np.empty(count, dtype=np.int32)
    k = 0
    for i in range(m):
        out[k] = kept[path[i]]
        k += 1
        if i == m - 1:
            break
        e = best_e[i]
        c = edge_chain[e]
        if c >= 0:
            lo = chain_off[c]
            hi = chain_off[c + 1]
            if edge_rev[e]:
                for j in range(hi - 1, lo - 1, -1):
                    out[k] = chain_nodes[j]
                    k += 1
            else:
                for j in range(lo, hi):
                    out[k] = chain_nodes[j]
                    k += 1
    return out


@njit(cache=True, nogil=True)
def _exits(node_chain, node_pos, chain_off, chain_fwd, chain_bwd, chain_a, chain_b,
           chain_fend, chain_bend, kept_index, x, outward):
    """Small-graph ids of the two ends of chain node ``x``'s chain and the
    cost from ``x`` to each (``outward``) or from each to ``x``; an end
    that is missing (dead end) or cannot be reached is ``-1`` / inf."""
    c = node_chain[x]
    p = node_pos[x]
    lo = chain_off[c]
    hi = chain_off[c + 1]
    to_a = 0.0
    to_b = 0.0
    if outward:   # x -> a walks back over positions p..0
        for i in range(lo, lo + p + 1):
            to_a += chain_bwd[i]
        for i in range(lo + p + 1, hi):
            to_b += chain_fwd[i]
        to_b += chain_fend[c]
    else:
        for i in range(lo, lo + p + 1):
            to_a += chain_fwd[i]
        for i in range(lo + p + 1, hi):
            to_b += chain_bwd[i]
        to_b += chain_bend[c]
    na = kept_index[chain_a[c]] if to_a < INF else -1
    nb = -1
    if chain_b[c] >= 0 and to_b < INF:
        nb = kept_index[chain_b[c]]
    return na, to_a, nb, to_b
