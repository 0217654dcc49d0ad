"""numba kernels that make the road graph from its segments (private; see
``network.py``): which source nodes are junctions, the chains of segments
between them, strongly connected components, and polylines of paths."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _split_count(off, nbr, v, p):
    """``(to p, to others)``: how many of ``v``'s entries in the CSR
    ``off``/``nbr`` name ``p``, and how many another node."""
    hits = 0
    for k in range(off[v], off[v + 1]):
        if nbr[k] == p:
            hits += 1
    return hits, off[v + 1] - off[v] - hits


@njit(cache=True, nogil=True)
def junctions(n, out_off, out_tgt, in_off, in_src):
    """``kept[v]``: whether source node ``v`` stays a node of the graph.

    A node is dropped (folded into the edge through it) when it joins
    exactly two other nodes ``p`` and ``q`` and every way in has its way
    out: ``p -> v`` exactly when ``v -> q``, ``q -> v`` exactly when
    ``v -> p``, and no segment is doubled. Dead ends, intersections, nodes
    where a one-way street turns into a two-way one (or two one-way
    streets meet head on) and nodes with self-loops stay.
    """
    kept = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        p = -1
        q = -1
        many = False
        for side in range(2):
            lo = out_off[v] if side == 0 else in_off[v]
            hi = out_off[v + 1] if side == 0 else in_off[v + 1]
            for k in range(lo, hi):
                w = out_tgt[k] if side == 0 else in_src[k]
                if w == v:
                    many = True
                elif w != p and w != q:
                    if p < 0:
                        p = w
                    elif q < 0:
                        q = w
                    else:
                        many = True
        if many or q < 0:
            kept[v] = True
            continue
        op, oq = _split_count(out_off, out_tgt, v, p)
        ip, iq = _split_count(in_off, in_src, v, p)
        through = op <= 1 and oq <= 1 and ip <= 1 and iq <= 1 and ip == oq and iq == op
        kept[v] = not through
    return kept


@njit(cache=True, nogil=True)
def trace_chains(n, out_off, out_tgt, out_seg, kept):
    """Follow every segment leaving a kept node through dropped nodes to
    the next kept node. Returns ``(e_src, e_dst, chain_start, chain)``:
    edge ``i`` runs from ``e_src[i]`` to ``e_dst[i]`` (source node
    indices) over segments ``chain[chain_start[i]:chain_start[i + 1]]``.

    A ring of dropped nodes only (a roundabout no road reaches) has no kept
    node: its first node is kept (``kept`` is updated) and the ring becomes
    a loop edge, which the caller drops.
    """
    m = out_tgt.shape[0]
    visited = np.zeros(m, dtype=np.bool_)
    e_src = np.empty(m, dtype=np.int64)
    e_dst = np.empty(m, dtype=np.int64)
    chain_start = np.empty(m + 1, dtype=np.int64)
    chain = np.empty(m, dtype=np.int64)
    ne = 0
    w = 0
    for rings in range(2):
        for u in range(n):
            if rings == 0 and not kept[u]:
                continue
            for k in range(out_off[u], out_off[u + 1]):
                if visited[k]:
                    continue
                kept[u] = True
                visited[k] = True
                chain_start[ne] = w
                chain[w] = out_seg[k]
                w += 1
                prev = u
                v = out_tgt[k]
                while not kept[v]:
                    nxt = out_off[v]             # a dropped node has one way on
                    if out_tgt[nxt] == prev and out_off[v + 1] - nxt > 1:
                        nxt += 1
                    visited[nxt] = True
                    chain[w] = out_seg[nxt]
                    w += 1
                    prev = v
                    v = out_tgt[nxt]
                e_src[ne] = u
                e_dst[ne] = v
                ne += 1
    chain_start[ne] = w
    return e_src[:ne], e_dst[:ne], chain_start[:ne + 1], chain[:w]


@njit(cache=True, nogil=True, inline="always")
def _enter(v, depth, counter, sp, offsets, index, low, stack, on_stack, call_node, call_edge):
    """Tarjan's visit of ``v`` at call depth ``depth``: numbered ``counter``,
    pushed on the stack, its edges next to scan; ``(counter, sp)`` after."""
    call_node[depth] = v
    call_edge[depth] = offsets[v]
    index[v] = counter
    low[v] = counter
    stack[sp] = v
    on_stack[v] = True
    return counter + 1, sp + 1


@njit(cache=True, nogil=True)
def strong_components(n, offsets, targets):
    """Tarjan's strongly connected components, iterative (no recursion
    limit on long roads). Returns int32 labels ``0..k-1`` per node."""
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    label = np.full(n, -1, dtype=np.int32)
    stack = np.empty(n, dtype=np.int64)
    call_node = np.empty(n, dtype=np.int64)
    call_edge = np.empty(n, dtype=np.int64)
    sp = 0
    counter = 0
    comps = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        depth = 0
        counter, sp = _enter(root, depth, counter, sp, offsets, index, low, stack, on_stack,
                             call_node, call_edge)
        while depth >= 0:
            v = call_node[depth]
            k = call_edge[depth]
            if k < offsets[v + 1]:
                call_edge[depth] = k + 1
                w = targets[k]
                if index[w] < 0:
                    depth += 1
                    counter, sp = _enter(w, depth, counter, sp, offsets, index, low, stack,
                                         on_stack, call_node, call_edge)
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:                   # v roots a component
                while True:
                    sp -= 1
                    w = stack[sp]
                    on_stack[w] = False
                    label[w] = comps
                    if w == v:
                        break
                comps += 1
            depth -= 1
            if depth >= 0:
                u = call_node[depth]
                if low[v] < low[u]:
                    low[u] = low[v]
    return label


@njit(cache=True, nogil=True)
def polyline(edges, chain_start, chain, seg_src, seg_dst, lon, lat):
    """(lon, lat) of the source nodes along ``edges`` (graph edge ids, in
    path order): the first segment's start, then every segment's end."""
    total = 1
    for i in range(edges.shape[0]):
        e = edges[i]
        total += chain_start[e + 1] - chain_start[e]
    out = np.empty((total if edges.shape[0] else 0, 2), dtype=np.float64)
    if edges.shape[0] == 0:
        return out
    v = seg_src[chain[chain_start[edges[0]]]]
    out[0, 0] = lon[v]
    out[0, 1] = lat[v]
    w = 1
    for i in range(edges.shape[0]):
        e = edges[i]
        for j in range(chain_start[e], chain_start[e + 1]):
            v = seg_dst[chain[j]]
            out[w, 0] = lon[v]
            out[w, 1] = lat[v]
            w += 1
    return out


@njit(cache=True, nogil=True)
def route_arrays(s, edges, targets, chain_start, chain_xy, positions, nodes):
    """The drawn road of a route from node ``s`` along ``edges`` (graph
    edge ids in path order): ``positions[s]``, then the end of every
    segment (``chain_xy``: (lon, lat) of each chain position's segment
    end, so an edge's points are one contiguous run), as ``polyline``
    draws it; its int32 nodes go to ``nodes`` (``s``, then the head of
    every edge). One call per found route (a returned pair of arrays would
    cost more than the call)."""
    nodes[0] = s
    total = 1
    for i in range(edges.shape[0]):
        e = edges[i]
        nodes[i + 1] = targets[e]
        total += chain_start[e + 1] - chain_start[e]
    out = np.empty((total, 2), dtype=np.float64)
    out[0, 0] = positions[s, 0]
    out[0, 1] = positions[s, 1]
    w = 1
    for i in range(edges.shape[0]):
        e = edges[i]
        for j in range(chain_start[e], chain_start[e + 1]):
            out[w, 0] = chain_xy[j, 0]
            out[w, 1] = chain_xy[j, 1]
            w += 1
    return out


@njit(cache=True, nogil=True)
def many_routes(starts, costs, offsets, edges, targets, chain_start, chain_xy, positions):
    """:func:`route_arrays` of many routes at once: route ``i`` starts at
    ``starts[i]`` along ``edges[offsets[i]:offsets[i + 1]]`` (none where
    ``costs[i]`` is inf: no route). Returns ``(nodes, node_offsets,
    points, point_offsets)``, route ``i``'s int32 nodes being
    ``nodes[node_offsets[i]:node_offsets[i + 1]]`` and its drawn road
    ``points[point_offsets[i]:...]`` (empty where there is no route)."""
    k = starts.shape[0]
    node_offsets = np.zeros(k + 1, dtype=np.int64)
    point_offsets = np.zeros(k + 1, dtype=np.int64)
    for i in range(k):
        n = 0
        p = 0
        if costs[i] < np.inf:
            n = offsets[i + 1] - offsets[i] + 1
            p = 1
            for j in range(offsets[i], offsets[i + 1]):
                e = edges[j]
                p += chain_start[e + 1] - chain_start[e]
        node_offsets[i + 1] = node_offsets[i] + n
        point_offsets[i + 1] = point_offsets[i] + p
    nodes = np.empty(node_offsets[k], dtype=np.int32)
    points = np.empty((point_offsets[k], 2), dtype=np.float64)
    for i in range(k):
        if not costs[i] < np.inf:
            continue
        a = node_offsets[i]
        w = point_offsets[i]
        s = starts[i]
        nodes[a] = s
        points[w, 0] = positions[s, 0]
        points[w, 1] = positions[s, 1]
        w += 1
        for j in range(offsets[i], offsets[i + 1]):
            e = edges[j]
            a += 1
            nodes[a] = targets[e]
            for c in range(chain_start[e], chain_start[e + 1]):
                points[w, 0] = chain_xy[c, 0]
                points[w, 1] = chain_xy[c, 1]
                w += 1
    return nodes, node_offsets, points, point_offsets


@njit(cache=True, nogil=True)
def one_segment_route(s, edges, targets, chain_xy, positions, nodes, points):
    """``route_arrays`` on a graph whose every edge is one segment (chain
    position ``e`` is edge ``e``'s, so a route has a point per node), into
    ``nodes`` and ``points`` the caller sized ``edges.shape[0] + 1``: a
    kernel that returns a new array pays about 0.6 us to hand it to Python,
    ``np.empty`` there about 0.2 us."""
    nodes[0] = s
    points[0, 0] = positions[s, 0]
    points[0, 1] = positions[s, 1]
    for i in range(edges.shape[0]):
        e = edges[i]
        nodes[i + 1] = targets[e]
        points[i + 1, 0] = chain_xy[e, 0]
        points[i + 1, 1] = chain_xy[e, 1]


@njit(cache=True, nogil=True)
def cheapest_edges(offsets, targets, cost, nodes):
    """For a path given as nodes, the cheapest edge between each
    consecutive pair (parallel roads: the one a search took)."""
    out = np.empty(max(nodes.shape[0] - 1, 0), dtype=np.int64)
    for i in range(nodes.shape[0] - 1):
        u = nodes[i]
        v = nodes[i + 1]
        best = -1
        for k in range(offsets[u], offsets[u + 1]):
            if targets[k] == v and (best < 0 or cost[k] < cost[best]):
                best = k
        out[i] = best
    return out
