"""numba kernels of the metric-independent node order (private; see
``cch.py``): nested dissection with inertial-flow separators.

The graph is the undirected simple graph under the road network (one
edge per pair of junctions joined in either direction, closed or not: the
order must serve every metric). A *task* is a contiguous range of the
array ``nodes``; the final array is the order (position = rank). A task
that is disconnected is split into its components; a small one is ordered
by degree; any other is cut by inertial flow (Schild and Sommer): for each
of four directions the nodes are sorted by their projection, the first and
last ``balance`` fraction become source and sink, and a maximum flow with
unit edge capacities (Dinic) gives a minimum edge cut. The endpoints of
the cut edges on one side (the smaller set) form a node separator. The
best of the four goes to the end of the range (ranked above both halves);
the rest becomes a new task. A separator ranked last is what makes the
chordal supergraph small: no fill-in crosses it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: four projection directions, as RoutingKit's inertial flow uses
_DIRS = np.array([[1.0, 0.0], [0.0, 1.0], [0.7071067811865476, 0.7071067811865476],
                  [0.7071067811865476, -0.7071067811865476]])


@njit(cache=True, nogil=True)
def undirected(n, offsets, targets):
    """The simple undirected graph under a directed CSR: ``(first, head,
    twin)`` with every edge in both rows, heads sorted, no self-loops or
    duplicates; ``twin[a]`` is the reverse arc of ``a``."""
    deg = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        for k in range(offsets[u], offsets[u + 1]):
            v = targets[k]
            if v != u:
                deg[u + 1] += 1
                deg[v + 1] += 1
    for u in range(n):
        deg[u + 1] += deg[u]
    raw = np.empty(deg[n], dtype=np.int32)
    fill = deg[:n].copy()
    for u in range(n):
        for k in range(offsets[u], offsets[u + 1]):
            v = targets[k]
            if v != u:
                raw[fill[u]] = v
                fill[u] += 1
                raw[fill[v]] = u
                fill[v] += 1
    first = np.zeros(n + 1, dtype=np.int64)
    head = np.empty(deg[n], dtype=np.int32)
    w = 0
    for u in range(n):
        row = np.sort(raw[deg[u]:deg[u + 1]])
        for i in range(row.shape[0]):
            if i == 0 or row[i] != row[i - 1]:
                head[w] = row[i]
                w += 1
        first[u + 1] = w
    head = head[:w].copy()
    twin = np.empty(w, dtype=np.int64)
    for u in range(n):
        for a in range(first[u], first[u + 1]):
            v = head[a]
            lo = first[v]
            hi = first[v + 1] - 1
            while lo < hi:                       # u is in v's sorted row
                mid = (lo + hi) >> 1
                if head[mid] < u:
                    lo = mid + 1
                else:
                    hi = mid
            twin[a] = lo
    return first, head, twin


@njit(cache=True, nogil=True)
def _bfs(first, head, src, dist, queue):
    """Hop distances from ``src`` over its component into ``dist`` (-1
    where unset); the component lands in ``queue``. Returns the farthest
    node reached and the component's size."""
    dist[src] = 0
    queue[0] = src
    qh = 0
    qt = 1
    far = src
    while qh < qt:
        u = queue[qh]
        qh += 1
        if dist[u] > dist[far]:
            far = u
        for a in range(first[u], first[u + 1]):
            v = head[a]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue[qt] = v
                qt += 1
    return far, qt


@njit(cache=True, nogil=True)
def pseudo_coordinates(first, head):
    """Coordinates for a graph without positions: per component, ``x`` is
    the hop distance from a peripheral node minus that from the node
    farthest from it, ``y`` the same for a second pair that starts far
    from the first two (a cheap two-dimensional embedding that inertial
    flow can project, as it would a drawing of the map)."""
    n = first.shape[0] - 1
    x = np.zeros(n)
    y = np.zeros(n)
    queue = np.empty(max(n, 1), dtype=np.int64)
    d = np.full((5, n), -1, dtype=np.int64)      # each row is written once per node
    for root in range(n):
        if d[4, root] >= 0:
            continue
        p1, size = _bfs(first, head, root, d[4], queue)
        p2, _ = _bfs(first, head, p1, d[0], queue)
        _bfs(first, head, p2, d[1], queue)
        p3 = p1
        best = -1
        for i in range(size):
            v = queue[i]
            m = min(d[0, v], d[1, v])
            if m > best:
                best = m
                p3 = v
        p4, _ = _bfs(first, head, p3, d[2], queue)
        _bfs(first, head, p4, d[3], queue)
        for i in range(size):
            v = queue[i]
            x[v] = d[0, v] - d[1, v]
            y[v] = d[2, v] - d[3, v]
    return x, y


@njit(cache=True, nogil=True)
def _maxflow(nodes, lo, hi, ns, first, head, twin, flow, mark, stamp, side, level, it,
             queue, snode, sarc):
    """Dinic with unit capacities between the first ``ns`` and the last
    ``ns`` of ``nodes[lo:hi]`` (already in projection order) in the
    subgraph of nodes with ``mark == stamp``. Leaves ``flow`` maximal and
    returns its value."""
    for p in range(lo, hi):
        v = nodes[p]
        side[v] = 1 if p < lo + ns else (2 if p >= hi - ns else 0)
        for a in range(first[v], first[v + 1]):
            flow[a] = 0
    total = 0
    while True:
        for p in range(lo, hi):
            level[nodes[p]] = -1
        qt = 0
        for p in range(lo, lo + ns):
            v = nodes[p]
            level[v] = 0
            queue[qt] = v
            qt += 1
        qh = 0
        found = False
        while qh < qt:
            u = queue[qh]
            qh += 1
            if side[u] == 2:
                found = True
                continue                           # sinks end paths
            for a in range(first[u], first[u + 1]):
                w = head[a]
                if mark[w] == stamp and level[w] < 0 and flow[a] < 1:
                    level[w] = level[u] + 1
                    queue[qt] = w
                    qt += 1
        if not found:
            return total
        for p in range(lo, hi):
            v = nodes[p]
            it[v] = first[v]
        for p in range(lo, lo + ns):
            s = nodes[p]
            while True:                            # augment from s until blocked
                top = 0
                snode[0] = s
                reached = False
                while top >= 0:
                    u = snode[top]
                    if top > 0 and side[u] == 2:
                        reached = True
                        break
                    moved = False
                    while it[u] < first[u + 1]:
                        a = it[u]
                        w = head[a]
                        if mark[w] == stamp and flow[a] < 1 and level[w] == level[u] + 1:
                            sarc[top] = a
                            top += 1
                            snode[top] = w
                            moved = True
                            break
                        it[u] += 1
                    if not moved:
                        level[u] = -2                # a dead end this phase
                        top -= 1
                        if top >= 0:
                            it[snode[top]] += 1
                if not reached:
                    break
                for i in range(top):
                    a = sarc[i]
                    flow[a] += 1
                    flow[twin[a]] -= 1
                total += 1
    return total


@njit(cache=True, nogil=True)
def _separator(nodes, lo, hi, ns, first, head, flow, mark, stamp, side, level, queue, out):
    """After :func:`_maxflow`: the node separator from the minimum cut
    into ``out``; returns ``(size, balance)``, balance the smaller part."""
    for p in range(lo, hi):
        level[nodes[p]] = 0
    qt = 0
    for p in range(lo, lo + ns):                # residual reachability = source side
        v = nodes[p]
        level[v] = 1
        queue[qt] = v
        qt += 1
    qh = 0
    while qh < qt:
        u = queue[qh]
        qh += 1
        for a in range(first[u], first[u + 1]):
            w = head[a]
            if mark[w] == stamp and level[w] == 0 and flow[a] < 1:
                level[w] = 1
                queue[qt] = w
                qt += 1
    reach = qt
    na = 0
    nb = 0
    for p in range(lo, hi):                     # cut endpoints: 2 source side, 3 sink side
        u = nodes[p]
        if level[u] != 1 and level[u] != 2:
            continue
        for a in range(first[u], first[u + 1]):
            w = head[a]
            if mark[w] == stamp and (level[w] == 0 or level[w] == 3):
                if level[u] == 1:
                    level[u] = 2
                    na += 1
                if level[w] == 0:
                    level[w] = 3
                    nb += 1
    pick = 2 if na < nb or (na == nb and reach >= hi - lo - reach) else 3
    k = 0
    for p in range(lo, hi):
        v = nodes[p]
        if level[v] == pick:
            out[k] = v
            k += 1
    rest = (hi - lo) - k
    part = reach - na if pick == 2 else reach
    return k, min(part, rest - part)


@njit(cache=True, nogil=True)
def nested_dissection(first, head, twin, x, y, balance, leaf):
    """The order (``order[rank] = node``) of the undirected graph ``first``
    / ``head`` by nested dissection with inertial flow on ``x``, ``y``."""
    n = first.shape[0] - 1
    nodes = np.arange(n, dtype=np.int64)
    if n == 0:
        return nodes
    mark = np.full(n, -1, dtype=np.int64)
    comp = np.full(n, -1, dtype=np.int64)
    side = np.zeros(n, dtype=np.int8)
    level = np.zeros(n, dtype=np.int64)
    it = np.zeros(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    snode = np.empty(n + 1, dtype=np.int64)
    sarc = np.empty(n + 1, dtype=np.int64)
    flow = np.zeros(head.shape[0], dtype=np.int8)
    buf = np.empty(n, dtype=np.int64)
    sep = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.int64)
    t_lo = np.empty(n + 1, dtype=np.int64)
    t_hi = np.empty(n + 1, dtype=np.int64)
    t_lo[0] = 0
    t_hi[0] = n
    tasks = 1
    stamp = 0
    while tasks > 0:
        tasks -= 1
        lo = t_lo[tasks]
        hi = t_hi[tasks]
        k = hi - lo
        stamp += 1
        for p in range(lo, hi):
            mark[nodes[p]] = stamp
        # components (labels are positions of their first node)
        ncomp = 0
        for p in range(lo, hi):
            r = nodes[p]
            if comp[r] == stamp:
                continue
            comp[r] = stamp
            level[r] = ncomp
            queue[0] = r
            qh = 0
            qt = 1
            while qh < qt:
                u = queue[qh]
                qh += 1
                for a in range(first[u], first[u + 1]):
                    w = head[a]
                    if mark[w] == stamp and comp[w] != stamp:
                        comp[w] = stamp
                        level[w] = ncomp
                        queue[qt] = w
                        qt += 1
            ncomp += 1
        if ncomp > 1:                              # counting sort by component
            cnt = np.zeros(ncomp + 1, dtype=np.int64)
            for p in range(lo, hi):
                cnt[level[nodes[p]] + 1] += 1
            for c in range(ncomp):
                cnt[c + 1] += cnt[c]
            starts = cnt.copy()
            for p in range(lo, hi):
                v = nodes[p]
                buf[cnt[level[v]]] = v
                cnt[level[v]] += 1
            for i in range(k):
                nodes[lo + i] = buf[i]
            for c in range(ncomp):
                if starts[c + 1] - starts[c] > 1:
                    t_lo[tasks] = lo + starts[c]
                    t_hi[tasks] = lo + starts[c + 1]
                    tasks += 1
            continue
        if k <= leaf:                              # tiny: low degree first
            for p in range(lo, hi):
                v = nodes[p]
                dg = 0
                for a in range(first[v], first[v + 1]):
                    if mark[head[a]] == stamp:
                        dg += 1
                level[v] = dg
                buf[p - lo] = v
            keys = np.empty(k, dtype=np.int64)
            for i in range(k):
                keys[i] = level[buf[i]]
            o = np.argsort(keys, kind="mergesort")
            for i in range(k):
                nodes[lo + i] = buf[o[i]]
            continue
        ns = max(1, int(balance * k))
        best_size = -1
        best_bal = -1
        proj = np.empty(k)
        for d in range(_DIRS.shape[0]):
            for p in range(lo, hi):
                v = nodes[p]
                proj[p - lo] = x[v] * _DIRS[d, 0] + y[v] * _DIRS[d, 1]
            o = np.argsort(proj, kind="mergesort")
            for i in range(k):
                buf[i] = nodes[lo + o[i]]
            for i in range(k):
                nodes[lo + i] = buf[i]
            _maxflow(nodes, lo, hi, ns, first, head, twin, flow, mark, stamp, side, level,
                     it, queue, snode, sarc)
            size, bal = _separator(nodes, lo, hi, ns, first, head, flow, mark, stamp, side,
                                   level, queue, sep)
            if best_size < 0 or size < best_size or (size == best_size and bal > best_bal):
                best_size = size
                best_bal = bal
                for i in range(size):
                    best[i] = sep[i]
        # the separator goes last, ranked above both sides; the rest is a task
        for i in range(best_size):
            mark[best[i]] = -2
        w = lo
        for p in range(lo, hi):
            v = nodes[p]
            if mark[v] == stamp:
                nodes[w] = v
                w += 1
        for i in range(best_size):
            nodes[w + i] = best[i]
        if w - lo > 0:
            t_lo[tasks] = lo
            t_hi[tasks] = w
            tasks += 1
    return nodes
