"""numba kernels of graph simplification (private; see ``simplify.py``).

Corridor contraction on CSR arrays: nodes that only pass traffic through (two
distinct neighbours, edges that continue the same way) are *interior*;
every maximal run of them between two *kept* nodes is a chain, replaced in
the small graph by one edge per direction it can be walked. A chain that
ends in a leaf (a dead end) is *folded*: it gets no edge at all, because
no shortest path between two other nodes enters a dead end.

Only usable edges count: finite cost, both ends walkable, no self-loops.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from navcore._kernels import heap_place, heap_pop

from ._search import heuristic

INF = np.inf
BLOCKED, KEPT, INTERIOR, LEAF, FOLDED = 0, 1, 2, 3, 4


class Graph(NamedTuple):
    """The graph a level is made from: CSR, reverse CSR (sources and the
    forward edge of each) and the walkable nodes."""
    offsets: np.ndarray
    targets: np.ndarray
    cost: np.ndarray
    roffsets: np.ndarray
    rsources: np.ndarray
    reids: np.ndarray
    walkable: np.ndarray


class Chains(NamedTuple):
    """The chains of one level as :func:`chains` writes them: each node's
    chain and position, each chain's node range, step costs, ends and end
    costs."""
    node_chain: np.ndarray
    node_pos: np.ndarray
    chain_off: np.ndarray
    chain_nodes: np.ndarray
    chain_fwd: np.ndarray
    chain_bwd: np.ndarray
    chain_a: np.ndarray
    chain_b: np.ndarray
    chain_fend: np.ndarray
    chain_bend: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def _meet(u, a, b, cnt):
    """Note neighbour ``u`` among the first two distinct ones ``a``, ``b``
    (``cnt`` of them so far, -1 for none yet): ``(a, b, cnt)`` after, cnt
    3 once a third distinct neighbour is met."""
    if u == a or u == b:
        return a, b, cnt
    if cnt == 0:
        return u, b, 1
    if cnt == 1:
        return a, u, 2
    return a, b, 3


@njit(cache=True, nogil=True, inline="always")
def _meet_side(v, lo, hi, ends, eids, by_id, walkable, cost, a, b, cnt):
    """:func:`_meet` the usable neighbours ``ends[lo:hi]`` of ``v`` (not
    ``v``, walkable, over an edge of finite cost: ``cost[eids[k]]`` when
    ``by_id``, else ``cost[k]``), from ``a``, ``b``, ``cnt``: ``(a, b, cnt,
    whether a is among them, whether b is)``, stopping at a third."""
    sa = sb = False
    for k in range(lo, hi):
        u = ends[k]
        if u == v or not walkable[u] or not (cost[eids[k]] if by_id else cost[k]) < INF:
            continue
        a, b, cnt = _meet(u, a, b, cnt)
        if cnt == 3:
            break
        sa |= u == a
        sb |= u == b
    return a, b, cnt, sa, sb


@njit(cache=True, nogil=True)
def classify(g, kind, nb1, nb2):
    """Set ``kind`` of every node and, for interior nodes and leaves, the
    distinct neighbours ``nb1`` / ``nb2``.

    Interior: exactly two distinct neighbours ``a``, ``b`` and either both
    directions to both (a two-way corridor) or in from one and out to the
    other only (a one-way corridor). Anything else is kept: a junction, a
    node where a one-way street meets a two-way one, a leaf, an isolated
    node. ``g``: a :class:`Graph`.
    """
    offsets, targets, cost, roffsets, rsources, reids, walkable = g
    n = offsets.shape[0] - 1
    for v in range(n):
        nb1[v] = -1
        nb2[v] = -1
        if not walkable[v]:
            kind[v] = BLOCKED
            continue
        a, b, cnt, oa, ob = _meet_side(v, offsets[v], offsets[v + 1], targets, targets, False,
                                       walkable, cost, -1, -1, 0)
        ia = ib = False
        if cnt < 3:
            a, b, cnt, ia, ib = _meet_side(v, roffsets[v], roffsets[v + 1], rsources, reids,
                                           True, walkable, cost, a, b, cnt)
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
def edge_cost(offsets, targets, cost, u, v):
    best = INF
    for e in range(offsets[u], offsets[u + 1]):
        if targets[e] == v and cost[e] < best:
            best = cost[e]
    return best


# separate arrays, unpacked from the groups once by chains: it runs once per
# chain, and an array read out of a tuple takes a reference (an atomic
# increment and decrement) each time
@njit(cache=True, nogil=True)
def walk(offsets, targets, cost, kind, nb1, nb2, a, x, fold, c, fill,
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
        chain_fwd[fill] = edge_cost(offsets, targets, cost, prev, cur)
        chain_bwd[fill] = edge_cost(offsets, targets, cost, cur, prev)
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
        chain_fwd[fill] = edge_cost(offsets, targets, cost, prev, cur)
        chain_bwd[fill] = edge_cost(offsets, targets, cost, cur, prev)
        node_chain[cur] = c
        node_pos[cur] = p
        kind[cur] = FOLDED
        fill += 1
        chain_b[c] = -1
        chain_fend[c] = INF
        chain_bend[c] = INF
    else:
        chain_b[c] = cur
        chain_fend[c] = edge_cost(offsets, targets, cost, prev, cur)
        chain_bend[c] = edge_cost(offsets, targets, cost, cur, prev)
    return fill


@njit(cache=True, nogil=True)
def chains(g, kind, nb1, nb2, ch):
    """Walk every chain of :class:`Graph` ``g`` into :class:`Chains`
    ``ch``; returns ``(chains, chain node count)``.

    Pass 1 walks from junctions (folding dead ends), pass 2 from leaves
    (isolated paths keep both ends), pass 3 makes one node of every
    remaining ring kept and walks the ring from it.
    """
    offsets, targets, cost, roffsets, rsources, reids, walkable = g
    (node_chain, node_pos, chain_off, chain_nodes, chain_fwd, chain_bwd, chain_a, chain_b,
     chain_fend, chain_bend) = ch
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
                    fill = walk(offsets, targets, cost, kind, nb1, nb2, a, x, fold, c,
                                 fill, node_chain, node_pos, chain_nodes, chain_fwd,
                                 chain_bwd, chain_a, chain_b, chain_fend, chain_bend)
                    c += 1
    chain_off[c] = fill
    return c, fill


@njit(cache=True, nogil=True)
def search(offsets, targets, cost, pos, hkind, hscale, gx, gy, gz,
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
        key = src_cost[k] + heuristic(pos, s, gx, gy, gz, hkind, hscale)
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
        heap_place(hnode, hkey, hpos, i, s, key)
    best = bound
    best_k = -1
    expanded = 0
    while size > 0:
        if hkey[0] >= best:
            break
        u, size = heap_pop(hnode, hkey, hpos, size)
        stamp[u] = closed_mark
        expanded += 1
        gu = g[u]
        for k in range(dst.shape[0]):
            if dst[k] == u and gu + dst_cost[k] < best:
                best = gu + dst_cost[k]
                best_k = k
        for e in range(offsets[u], offsets[u + 1]):
            if not cost[e] < INF:     # a chain or edge an update closed
                continue
            v = targets[e]
            sv = stamp[v]
            if sv == closed_mark:
                continue
            # written out as in _search.astar (its comment says why)
            ng = gu + cost[e]
            if sv == open_mark:
                if ng >= g[v]:
                    continue
                i = hpos[v]
                key = ng + (hkey[i] - g[v])
            else:
                stamp[v] = open_mark
                key = ng + heuristic(pos, v, gx, gy, gz, hkind, hscale)
                i = size
                size += 1
            g[v] = ng
            pnode[v] = u
            pedge[v] = e
            heap_place(hnode, hkey, hpos, i, v, key)
    return best, best_k, expanded


# -- the query: every level in one call ----------------------------------------
# The levels are packed level after level into one array per field (see
# ``simplification.Packed``): ``base[j]`` holds where level j starts in the
# per-node, per-chain and per-kept-node arrays. Chain ids and small-graph
# rows are global (``chain_off`` and ``offsets`` run on across levels), node
# values stay in the ids of their own level. One call instead of a Python
# loop over levels keeps a short query at a few microseconds.
NODE_BASE, CHAIN_BASE, KEPT_BASE = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def enter(ent_node, ent_cost, ent_parent, ent_x, ent_side, lo, hi, node, c, parent, x, side):
    """Add entry ``node`` at cost ``c`` to the list ``[lo, hi)``, or lower
    the cost of the entry it already has; returns the new ``hi``."""
    for i in range(lo, hi):
        if ent_node[i] == node:
            if c < ent_cost[i]:
                ent_cost[i] = c
                ent_parent[i] = parent
                ent_x[i] = x
                ent_side[i] = side
            return hi
    ent_node[hi] = node
    ent_cost[hi] = c
    ent_parent[hi] = parent
    ent_x[hi] = x
    ent_side[hi] = side
    return hi + 1


@njit(cache=True, nogil=True)
def lift(j, lo, hi, outward, base, node_chain, node_pos, kept_index, chain_off,
          chain_fwd, chain_bwd, chain_a, chain_b, chain_fend, chain_bend,
          ent_node, ent_cost, ent_parent, ent_x, ent_side):
    """Entries ``[lo, hi)`` of graph ``j`` as entries of graph ``j + 1``,
    written from ``hi`` on: a kept node goes up as itself (side -1), a
    chain node to the chain ends it can reach (side 0: end a, 1: end b),
    ``outward`` from the node or else towards it, with the partial cost.
    Returns the end of the new list."""
    nb = base[j, NODE_BASE]
    out = hi
    for i in range(lo, hi):
        x = ent_node[i]
        c0 = ent_cost[i]
        k = kept_index[nb + x]
        if k >= 0:
            out = enter(ent_node, ent_cost, ent_parent, ent_x, ent_side, hi, out,
                         k, c0, i, x, -1)
            continue
        ch = node_chain[nb + x]
        if ch < 0:
            continue
        gc = base[j, CHAIN_BASE] + ch
        first = chain_off[gc]
        last = chain_off[gc + 1]
        p = first + node_pos[nb + x]
        to_a = 0.0
        to_b = 0.0
        if outward:   # x -> a walks back over positions p..first
            for q in range(first, p + 1):
                to_a += chain_bwd[q]
            for q in range(p + 1, last):
                to_b += chain_fwd[q]
            to_b += chain_fend[gc]
        else:
            for q in range(first, p + 1):
                to_a += chain_fwd[q]
            for q in range(p + 1, last):
                to_b += chain_bwd[q]
            to_b += chain_bend[gc]
        if to_a < INF:
            out = enter(ent_node, ent_cost, ent_parent, ent_x, ent_side, hi, out,
                         kept_index[nb + chain_a[gc]], c0 + to_a, i, x, 0)
        if chain_b[gc] >= 0 and to_b < INF:
            out = enter(ent_node, ent_cost, ent_parent, ent_x, ent_side, hi, out,
                         kept_index[nb + chain_b[gc]], c0 + to_b, i, x, 1)
    return out


@njit(cache=True, nogil=True, inline="always")
def inside(j, x, y, outward, base, node_chain, node_pos, chain_off, chain_fwd, chain_bwd):
    """Cost from ``x`` to ``y`` (graph ``j``) without leaving their common
    chain; 0 when they are one node, inf when they share no chain."""
    if x == y:
        return 0.0
    nb = base[j, NODE_BASE]
    ch = node_chain[nb + x]
    if ch < 0 or ch != node_chain[nb + y]:
        return INF
    first = chain_off[base[j, CHAIN_BASE] + ch]
    p = first + node_pos[nb + x]
    q = first + node_pos[nb + y]
    total = 0.0
    if p < q:
        for i in range(p + 1, q + 1):
            total += chain_fwd[i]
    else:
        for i in range(q + 1, p + 1):
            total += chain_bwd[i]
    return total


@njit(cache=True, nogil=True, inline="always")
def _copy_run(chain_nodes, lo, hi, backwards, out, k):
    """Write ``chain_nodes[lo:hi]`` (reversed when ``backwards``) into
    ``out`` from ``k``; returns the new end, -1 if ``out`` is too short."""
    if k + hi - lo > out.shape[0]:
        return -1
    if backwards:
        for i in range(hi - 1, lo - 1, -1):
            out[k] = chain_nodes[i]
            k += 1
    else:
        for i in range(lo, hi):
            out[k] = chain_nodes[i]
            k += 1
    return k


@njit(cache=True, nogil=True)
def walk_out(j, x, side, goal_side, base, node_chain, node_pos, chain_off, chain_nodes,
              out, k):
    """Write the chain nodes between entry ``x`` (graph ``j``) and its chain
    end ``side`` into ``out[k:]``, leaving out the end itself: from ``x``
    towards the end for the start, from the end to ``x`` for the goal.
    Nothing for a kept node (side -1, ``x`` is then the path's own end).
    Returns the new end, -1 if ``out`` is too short."""
    if side < 0:
        return k
    nb = base[j, NODE_BASE]
    gc = base[j, CHAIN_BASE] + node_chain[nb + x]
    first = chain_off[gc]
    last = chain_off[gc + 1]
    p = first + node_pos[nb + x]
    lo, hi = (first, p + 1) if side == 0 else (p, last)
    # the start walks away from x: towards a is downwards, towards b upwards;
    # the goal side walks the same stretch the other way
    return _copy_run(chain_nodes, lo, hi, (side == 0) != goal_side, out, k)


@njit(cache=True, nogil=True)
def expand(j, path, m, base, kept, offsets, targets, cost, edge_chain, edge_rev,
            chain_off, chain_nodes, out, k):
    """Write ``path[:m]`` (graph ``j + 1``) into ``out[k:]`` as nodes of
    graph ``j``: each step takes the cheapest small edge between its two
    nodes (the one the search used, or one as cheap) and splices in its
    chain. Returns the new end, -1 if ``out`` is too short."""
    kb = base[j, KEPT_BASE]
    cb = base[j, CHAIN_BASE]
    for i in range(m):
        u = path[i]
        if k >= out.shape[0]:
            return -1
        out[k] = kept[kb + u]
        k += 1
        if i == m - 1:
            break
        v = path[i + 1]
        best = INF
        be = -1
        for e in range(offsets[kb + u], offsets[kb + u + 1]):
            if targets[e] == v and cost[e] < best:
                best = cost[e]
                be = e
        c = edge_chain[be]
        if c >= 0:
            k = _copy_run(chain_nodes, chain_off[cb + c], chain_off[cb + c + 1], edge_rev[be],
                          out, k)
            if k < 0:
                return -1
    return k


@njit(cache=True, nogil=True)
def query(s, t, base, node_i32, chain_off, chain_nodes, chain_steps, chain_ends,
           chain_end_cost, kept, offsets, targets, cost, edge_chain, edge_rev,
           pos, gpos, hkind, hscale, ent_i32, ent_cost, ent_off, search_f64, search_i32,
           gen, bufs):
    """Optimal path from ``s`` to ``t`` (walkable nodes of graph 0, s != t).

    Climb: the start and goal become entry lists of every level (side 0 of
    the entry scratch holds the start's, side 1 the goal's;
    ``ent_off[side, j]`` is where level j's list begins), noting on the way
    the cheapest route that stays inside one chain. Search: A* on the top
    graph between the two top lists, bounded by that route. Descend: expand
    the winning path level by level, adding the walks from the start and
    goal to the chain ends they entered through.

    Fields of one dtype and length come as rows of one array (fewer
    arguments make the call cheaper): ``node_i32`` = node_chain, node_pos,
    kept_index; ``chain_steps`` = fwd, bwd; ``chain_ends`` = a, b;
    ``chain_end_cost`` = fend, bend; ``ent_i32`` = node, parent, x, side;
    ``search_f64`` = g, key; ``search_i32`` = parent, edge, stamp, heap
    node, heap position; ``bufs`` two path buffers as long as graph 0.

    Returns ``(cost, expanded, nodes)``; ``nodes`` is empty when ``t``
    cannot be reached.
    """
    node_chain, node_pos, kept_index = node_i32[0], node_i32[1], node_i32[2]
    chain_fwd, chain_bwd = chain_steps[0], chain_steps[1]
    chain_a, chain_b = chain_ends[0], chain_ends[1]
    chain_fend, chain_bend = chain_end_cost[0], chain_end_cost[1]
    ent_node, ent_parent, ent_x, ent_side = ent_i32[0], ent_i32[1], ent_i32[2], ent_i32[3]
    g, hkey = search_f64[0], search_f64[1]
    pnode, pedge, stamp = search_i32[0], search_i32[1], search_i32[2]
    hnode, hpos = search_i32[3], search_i32[4]
    buf_a, buf_b = bufs[0], bufs[1]
    gx = gy = gz = 0.0
    if hkind != 0:   # without positions gpos is a placeholder
        gx = gpos[t, 0]
        gy = gpos[t, 1]
        gz = gpos[t, 2] if gpos.shape[1] > 2 else 0.0
    levels = base.shape[0] - 1
    cap = ent_node.shape[0] // 2
    ent_node[0] = s
    ent_node[cap] = t
    for d in range(2):
        ent_cost[d * cap] = 0.0
        ent_parent[d * cap] = -1
        ent_x[d * cap] = -1
        ent_side[d * cap] = -1
        ent_off[d, 0] = d * cap
        ent_off[d, 1] = d * cap + 1
    best = INF
    best_j = -1
    best_a = -1
    best_b = -1
    for j in range(levels):
        for a in range(ent_off[0, j], ent_off[0, j + 1]):
            for b in range(ent_off[1, j], ent_off[1, j + 1]):
                d = ent_cost[a] + ent_cost[b] + inside(
                    j, ent_node[a], ent_node[b], True, base, node_chain, node_pos,
                    chain_off, chain_fwd, chain_bwd)
                if d < best:
                    best, best_j, best_a, best_b = d, j, a, b
        for d in range(2):
            ent_off[d, j + 2] = lift(j, ent_off[d, j], ent_off[d, j + 1], d == 0, base,
                                      node_chain, node_pos, kept_index, chain_off,
                                      chain_fwd, chain_bwd, chain_a, chain_b, chain_fend,
                                      chain_bend, ent_node, ent_cost, ent_parent, ent_x,
                                      ent_side)
    # A* on the top graph (rows from base[levels - 1, KEPT_BASE] on)
    top = base[levels - 1, KEPT_BASE]
    slo, shi = ent_off[0, levels], ent_off[0, levels + 1]
    tlo, thi = ent_off[1, levels], ent_off[1, levels + 1]
    total, best_k, expanded = search(
        offsets[top:], targets, cost, pos, hkind, hscale, gx, gy, gz,
        ent_node[slo:shi], ent_cost[slo:shi], ent_node[tlo:thi], ent_cost[tlo:thi], best,
        g, pnode, pedge, stamp, hnode, hkey, hpos, gen)
    if not total < INF:
        return total, expanded, np.empty(0, dtype=np.int32)
    if best_k >= 0:   # the route runs through the top graph: trace it
        m = 1
        v = ent_node[tlo + best_k]
        while pnode[v] >= 0:
            m += 1
            v = pnode[v]
        v = ent_node[tlo + best_k]
        for i in range(m - 1, -1, -1):
            buf_a[i] = v
            if i > 0:
                v = pnode[v]
        a = slo - 1 - pnode[v]
        b = tlo + best_k
        level = levels
    else:             # inside one chain of graph best_j
        level = best_j
        a, b = best_a, best_b
        x, y = ent_node[a], ent_node[b]
        m = 0
        if x == y:
            buf_a[0] = x
            m = 1
        else:
            nb = base[level, NODE_BASE]
            first = chain_off[base[level, CHAIN_BASE] + node_chain[nb + x]]
            p = first + node_pos[nb + x]
            q = first + node_pos[nb + y]
            step = 1 if p < q else -1
            for i in range(p, q + step, step):
                buf_a[m] = chain_nodes[i]
                m += 1
    cur, nxt = buf_a, buf_b
    while level > 0:
        j = level - 1
        # the buffers hold as many nodes as graph 0: an optimal path is
        # simple (ties go to the route found first), so they never fill
        k = walk_out(j, ent_x[a], ent_side[a], False, base, node_chain, node_pos,
                      chain_off, chain_nodes, nxt, 0)
        if k >= 0:
            k = expand(j, cur, m, base, kept, offsets, targets, cost, edge_chain,
                        edge_rev, chain_off, chain_nodes, nxt, k)
        if k >= 0:
            k = walk_out(j, ent_x[b], ent_side[b], True, base, node_chain, node_pos,
                          chain_off, chain_nodes, nxt, k)
        if k < 0:
            raise ValueError("simplified path longer than the graph")
        m = k
        a = ent_parent[a]
        b = ent_parent[b]
        cur, nxt = nxt, cur
        level = j
    out = np.empty(m, dtype=np.int32)
    for i in range(m):
        out[i] = cur[i]
    return total, expanded, out


# -- patching a view in place after an update --------------------------------
# Every cost the view holds sits in a slot: a chain step (``chain_steps``
# row 0: previous -> node, row 1: node -> previous), a chain end
# (``chain_end_cost`` row 0: last -> b, row 1: b -> last) or a direct small
# edge. Each slot also keeps its cost at build time. An update whose edges
# all cost at least what they cost at build (walls closing, doors shutting
# and opening again, mud laid and cleared) can be written into the slots:
# the structure stays right, and the heuristic, scaled to the build's least
# cost, stays admissible. Anything cheaper than at build (an edge the build
# never saw becoming usable) needs a rebuild.

@njit(cache=True, nogil=True)
def incident_pairs(dirty, offsets, targets, roffsets, rsources):
    """``(us, vs)``: every out-edge and in-edge of the ``dirty`` nodes."""
    n = 0
    for i in range(dirty.shape[0]):
        d = dirty[i]
        n += offsets[d + 1] - offsets[d] + roffsets[d + 1] - roffsets[d]
    us = np.empty(n, dtype=np.int64)
    vs = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(dirty.shape[0]):
        d = dirty[i]
        for e in range(offsets[d], offsets[d + 1]):
            us[k] = d
            vs[k] = targets[e]
            k += 1
        for e in range(roffsets[d], roffsets[d + 1]):
            us[k] = rsources[e]
            vs[k] = d
            k += 1
    return us, vs


@njit(cache=True, nogil=True, inline="always")
def set(cur, build, row, idx, c):
    """Write ``c`` into slot ``cur[row, idx]``; False if it is cheaper
    than at build (the view cannot be patched)."""
    if c < build[row, idx]:
        return False
    cur[row, idx] = c
    return True


class Below(NamedTuple):
    """The graph below a level as a patch reads it: CSR, walkable nodes and
    whether to read them (the base graph's; the levels above keep only
    walkable nodes)."""
    offsets: np.ndarray
    targets: np.ndarray
    cost: np.ndarray
    walkable: np.ndarray
    use_walk: bool


class PatchArrays(NamedTuple):
    """The packed levels' arrays a patch reads and writes
    (``simplification.Packed``): the slots, their costs at build, the small
    graphs' edges and the chain stamps."""
    base: np.ndarray
    node_i32: np.ndarray
    chain_off: np.ndarray
    chain_nodes: np.ndarray
    chain_steps: np.ndarray
    steps_build: np.ndarray
    chain_ends: np.ndarray
    end_cost: np.ndarray
    end_build: np.ndarray
    offsets: np.ndarray
    targets: np.ndarray
    cost: np.ndarray
    edge_chain: np.ndarray
    cost_build: np.ndarray
    chain_fedge: np.ndarray
    chain_bedge: np.ndarray
    chain_stamp: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def _set_cost(cost, e, c, u, v, out_u, out_v, nout):
    """Give small edge ``e`` the cost ``c``; when that changes it, note the
    edge as ``(u, v)`` at ``nout``. Returns the new count."""
    if cost[e] != c:
        cost[e] = c
        out_u[nout] = u
        out_v[nout] = v
        nout += 1
    return nout


@njit(cache=True, nogil=True)
def patch_level(j, us, vs, below, pa, gen, out_u, out_v):
    """Bring level ``j``'s slots (:class:`PatchArrays` ``pa``) for the
    edges ``us[i] -> vs[i]`` of the graph below (:class:`Below`) up to
    date, then the small-graph edges of the chains touched. Returns the
    number of small edges whose cost changed (their ends, in ids of graph
    ``j + 1``, in ``out_u``/``out_v``: the next level's pairs), or -1 when
    an edge is cheaper than at build."""
    offsets_b, targets_b, cost_b, walkable, use_walk = below
    (base, node_i32, chain_off, chain_nodes, chain_steps, steps_build, chain_ends, end_cost,
     end_build, offsets, targets, cost, edge_chain, cost_build, chain_fedge, chain_bedge,
     chain_stamp) = pa
    nb = base[j, NODE_BASE]
    cb = base[j, CHAIN_BASE]
    kb = base[j, KEPT_BASE]
    node_chain, node_pos, kept_index = node_i32[0], node_i32[1], node_i32[2]
    touched = np.empty(2 * us.shape[0] + 1, dtype=np.int64)
    nt = 0
    nout = 0
    for i in range(us.shape[0]):
        u = us[i]
        v = vs[i]
        if u == v:
            continue
        c = INF
        if not use_walk or (walkable[u] and walkable[v]):
            for e in range(offsets_b[u], offsets_b[u + 1]):
                if targets_b[e] == v and cost_b[e] < c:
                    c = cost_b[e]
        found = False
        for side in range(2):          # slots through u's chain, then v's
            x = u if side == 0 else v
            y = v if side == 0 else u
            ch = node_chain[nb + x]
            if ch < 0:
                continue
            g = cb + ch
            first = chain_off[g]
            last = chain_off[g + 1]
            p = first + node_pos[nb + x]
            nxt = chain_nodes[p + 1] if p + 1 < last else chain_ends[1, g]
            prv = chain_nodes[p - 1] if p > first else chain_ends[0, g]
            hit = False
            # u -> v runs forward along the chain (row 0) when v follows u
            # or u precedes v, backward (row 1) otherwise
            if y == nxt:
                hit = True
                if p + 1 < last:
                    ok = set(chain_steps, steps_build, side, p + 1, c)
                else:
                    ok = set(end_cost, end_build, side, g, c)
                if not ok:
                    return -1
            if y == prv:
                hit = True
                if not set(chain_steps, steps_build, 1 if side == 0 else 0, p, c):
                    return -1
            if hit:
                found = True
                if chain_stamp[g] != gen:
                    chain_stamp[g] = gen
                    touched[nt] = g
                    nt += 1
        ku = kept_index[nb + u]
        kv = kept_index[nb + v]
        if ku >= 0 and kv >= 0:
            for e in range(offsets[kb + ku], offsets[kb + ku + 1]):
                if targets[e] == kv and edge_chain[e] < 0:
                    found = True
                    if c < cost_build[e]:
                        return -1
                    nout = _set_cost(cost, e, c, ku, kv, out_u, out_v, nout)
        if not found and c < INF:       # an edge the build never saw
            return -1
    for t in range(nt):
        g = touched[t]
        f = end_cost[0, g]
        b = end_cost[1, g]
        for q in range(chain_off[g], chain_off[g + 1]):
            f += chain_steps[0, q]
            b += chain_steps[1, q]
        a_k = kept_index[nb + chain_ends[0, g]]
        b_k = kept_index[nb + chain_ends[1, g]] if chain_ends[1, g] >= 0 else -1
        if chain_fedge[g] >= 0:
            nout = _set_cost(cost, chain_fedge[g], f, a_k, b_k, out_u, out_v, nout)
        if chain_bedge[g] >= 0:
            nout = _set_cost(cost, chain_bedge[g], b, b_k, a_k, out_u, out_v, nout)
    return nout
