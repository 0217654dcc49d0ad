"""Partial customization of a customizable hierarchy (private; see
``cch.py`` and ``_cch.py``): after a batch of cost changes, only the
supergraph arcs the changed input edges reach are computed again.

An arc ``(x, y)``'s basic weights are its input edges' costs improved by
its lower triangles ``z < x`` (arcs ``(z, x)``, ``(z, y)``), so they read
only arcs whose lower end ranks below ``x``. The arcs of the changed edges
are queued; the arc with the lowest id (arcs are sorted by their lower
end) is recomputed from scratch, from its edges and its lower triangles in
the order the whole customization takes them, so its weights, triangle and
input edge are bit for bit what a whole customization gives. Only when a
weight differs from before do the arcs whose triangles use it go into the
queue: for an arc ``(x, y)`` and each other ``(x, y')``, the arc between
``y`` and ``y'``, whose lower end ranks above ``x`` (RoutingKit's
``CCHMetricPartialUpdater`` works the same way).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from navcore._kernels import lazy_pop, lazy_push

from ._cch import _basic_node

INF = np.inf


@njit(cache=True, nogil=True, inline="always")
def _arc(up_head, lo, hi, y):
    """The position of ``y`` in the sorted ``up_head[lo:hi]``, -1 if absent."""
    while lo < hi:
        mid = (lo + hi) >> 1
        h = up_head[mid]
        if h < y:
            lo = mid + 1
        elif h > y:
            hi = mid
        else:
            return mid
    return -1


@njit(cache=True, nogil=True, inline="always")
def _initial(a, arc_first, arc_edges, edge_up, cost, w_up, w_down, mid_up, mid_down, src_up,
             src_down):
    """Arc ``a`` from its input edges only: the cheapest of parallel ones,
    first on ties (as ``_cch._initial``)."""
    wu = INF
    wd = INF
    su = -1
    sd = -1
    for i in range(arc_first[a], arc_first[a + 1]):
        e = arc_edges[i]
        c = cost[e]
        if edge_up[e]:
            if c < wu:
                wu = c
                su = e
        elif c < wd:
            wd = c
            sd = e
    w_up[a] = wu
    w_down[a] = wd
    src_up[a] = su
    src_down[a] = sd
    mid_up[a] = -1
    mid_down[a] = -1


@njit(cache=True, nogil=True, inline="always")
def _queue_above(a, x, y, up_first, up_head, queued, heap, size, cap, budget, done):
    """Queue the arcs whose lower triangles use arc ``a = (x, y)``: for each
    other ``(x, y')`` the arc between ``y`` and ``y'``. ``(size, over)``."""
    for a2 in range(up_first[x], up_first[x + 1]):
        y2 = up_head[a2]
        if y2 == y:
            continue
        lo = y if y < y2 else y2
        hi = y2 if y < y2 else y
        t = _arc(up_head, up_first[lo], up_first[lo + 1], hi)
        if queued[t]:
            continue
        if size == cap or done + size >= budget:
            return size, True
        queued[t] = 1
        lazy_push(heap, heap, size, t, t)
        size += 1
    return size, False


@njit(cache=True, nogil=True)
def update(topo, arc_first, arc_edges, arc_low, old_cost, cost, wts, queued, heap, budget,
           mark):
    """Make weights ``wts`` (a whole basic customization of :class:`_cch.Topology`
    ``topo`` for edge costs ``old_cost``) those of ``cost``. ``arc_first``/
    ``arc_edges``: each arc's input edges, ascending; ``queued``: a zero
    byte per arc (left zero); ``heap``: scratch for the queue, the kernels'
    lazy heap with each arc id its own key (one array for both); ``mark``: a scratch entry
    per node, any content. Returns the arcs computed again, or -1 once that
    would exceed ``budget`` (or the heap): then ``wts`` is half done and the
    caller customizes the whole metric.

    The queued arcs of one node are taken together: when they are many of
    its arcs, the node's lower triangles are walked once as the whole
    customization walks them (its other arcs keep their weights bit for
    bit: none of their triangles changed, so no sum is strictly below
    them); when few, each arc finds its triangles by binary search."""
    edge_arc, edge_up = topo.edge_arc, topo.edge_up
    up_first, up_head = topo.up_first, topo.up_head
    down_first, down_tail, down_arc = topo.down_first, topo.down_tail, topo.down_arc
    w_up, w_down, mid_up, mid_down = wts.w_up, wts.w_down, wts.mid_up, wts.mid_down
    src_up, src_down = wts.src_up, wts.src_down
    cap = min(heap.shape[0], budget)
    size = 0
    over = False
    for e in range(cost.shape[0]):
        if not (cost[e] == old_cost[e]):
            a = edge_arc[e]
            if a < 0 or queued[a]:
                continue
            if size == cap:
                over = True
                break
            queued[a] = 1
            lazy_push(heap, heap, size, a, a)
            size += 1
    n = up_first.shape[0] - 1
    width = 1
    for x in range(n):
        width = max(width, up_first[x + 1] - up_first[x])
    group = np.empty(width, dtype=np.int64)
    old_u = np.empty(width)
    old_d = np.empty(width)
    done = 0
    while size > 0 and not over:
        a = heap[0]
        lazy_pop(heap, heap, size)
        size -= 1
        queued[a] = 0
        x = arc_low[a]
        k = 0
        group[k] = a
        k += 1
        while size > 0 and arc_low[heap[0]] == x:     # arcs by id: a node's come together
            b = heap[0]
            lazy_pop(heap, heap, size)
            size -= 1
            queued[b] = 0
            group[k] = b
            k += 1
        done += k
        for i in range(k):
            a = group[i]
            old_u[i] = w_up[a]
            old_d[i] = w_down[a]
            _initial(a, arc_first, arc_edges, edge_up, cost, w_up, w_down, mid_up, mid_down,
                     src_up, src_down)
        if 8 * k > up_first[x + 1] - up_first[x]:
            # many: the node's triangles once, as the whole customization
            _basic_node(x, up_first, up_head, down_first, down_tail, down_arc, w_up, w_down,
                        mid_up, mid_down, mark)
        else:
            for i in range(k):
                a = group[i]
                y = up_head[a]
                wu = w_up[a]
                wd = w_down[a]
                mu = -1
                md = -1
                # the lower triangles, in the order the whole customization meets them
                for d in range(down_first[x], down_first[x + 1]):
                    azx = down_arc[d]
                    wxz = w_down[azx]                          # x -> z
                    wzx = w_up[azx]                            # z -> x
                    if wxz == INF and wzx == INF:
                        continue
                    z = down_tail[d]
                    b = _arc(up_head, azx + 1, up_first[z + 1], y)
                    if b < 0:
                        continue
                    s = wxz + w_up[b]
                    if s < wu:
                        wu = s
                        mu = z
                    s = w_down[b] + wzx
                    if s < wd:
                        wd = s
                        md = z
                w_up[a] = wu
                w_down[a] = wd
                mid_up[a] = mu
                mid_down[a] = md
        for i in range(k):
            a = group[i]
            if w_up[a] == old_u[i] and w_down[a] == old_d[i]:
                continue
            size, over = _queue_above(a, x, up_head[a], up_first, up_head, queued, heap, size,
                                      cap, budget, done)
            if over:
                break
    if over:
        for i in range(size):
            queued[heap[i]] = 0
        return -1
    return done


@njit(cache=True, nogil=True)
def arc_edges(edge_arc, arcs):
    """Each arc's input edges, ascending: ``(first, edges)``."""
    first = np.zeros(arcs + 1, dtype=np.int64)
    for e in range(edge_arc.shape[0]):
        a = edge_arc[e]
        if a >= 0:
            first[a + 1] += 1
    for a in range(arcs):
        first[a + 1] += first[a]
    fill = first[:arcs].copy()
    edges = np.empty(first[arcs], dtype=np.int64)
    for e in range(edge_arc.shape[0]):
        a = edge_arc[e]
        if a >= 0:
            edges[fill[a]] = e
            fill[a] += 1
    return first, edges
