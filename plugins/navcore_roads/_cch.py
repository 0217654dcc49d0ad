"""numba kernels of the customizable contraction hierarchy (private; see
``cch.py``).

Everything works on node ids renumbered by rank (``x`` is the node of rank
``x``). The *supergraph* is the chordal graph that contracting every node
in rank order without witness searches leaves: ``up(x)`` (sorted, the
arcs ``up_first[x]..up_first[x + 1]``) holds the neighbours above ``x``
and is a clique. Its elimination tree has ``parent[x] = min(up(x))``; every
node of ``up(x)`` is an ancestor of ``x``, so a search upward from ``x``
only ever meets the chain of ancestors, which is walked in rank order
without a priority queue.

Each arc ``(x, y)``, ``x < y``, carries two weights: ``w_up`` for ``x ->
y`` and ``w_down`` for ``y -> x`` (one-way streets differ). The
customization starts from the input edges (the cheapest of parallel ones,
``inf`` where none or closed), then

* basic: bottom-up over the levels of the elimination tree, every arc
  ``(x, y)`` takes the best path through a lower triangle ``z < x``
  (arcs ``(z, x)`` and ``(z, y)``): then it is the shortest path whose
  inner nodes are all below ``x``; ``mid`` records ``z`` for unpacking;
* perfect: top-down, the middle and upper triangles (``z > x``) make it
  the true distance. An arc direction that got strictly shorter here is
  not on any shortest path through lower nodes, so no shortest path needs
  it (the induction on a path's highest node goes through the arcs whose
  basic weight is exact); the query graphs leave it out.

A node's arcs depend only on its descendants' (basic) or ancestors'
(perfect), so whole subtrees below the top separators (``tree_parts``)
run side by side on a large graph; otherwise nodes run in rank order,
which walks the arrays front to back.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import get_thread_id, njit, prange

from navcore_csr.buckets import fill_buckets, group_by, scan_buckets

INF = np.inf
#: perfect weights below basic ones by less than this (relative) keep the
#: arc: float sums of equal paths may differ in the last bit, and an arc too
#: many costs time, one too few a wrong answer
_TIE = 1e-12
#: supergraphs with fewer arcs customize on the calling thread: a parallel
#: launch costs tens of microseconds, and milliseconds when another process
#: holds the other core (2 cores, BENCHMARKS.md "Serial or parallel": 87k
#: arcs 3.0 ms on one thread, 8.0 ms on two; 192k arcs 7.3 ms on one,
#: 4.5 ms on two with the second core free)
PAR_MIN_ARCS = 150_000


# -- topology ---------------------------------------------------------------------

@njit(cache=True, nogil=True)
def chordal(first, head, order, rank):
    """The supergraph of the undirected graph ``first``/``head`` contracted
    in ``order``: ``(up_first, up_head, parent)`` over ranks. A node's
    upward neighbours are its own above it plus its tree children's (the
    elimination game, without a quadratic clique)."""
    n = first.shape[0] - 1
    up_first = np.zeros(n + 1, dtype=np.int64)
    cap = max(16, 2 * head.shape[0] + n)
    up_head = np.empty(cap, dtype=np.int32)
    parent = np.full(n, -1, dtype=np.int32)
    child = np.full(n, -1, dtype=np.int64)
    sibling = np.full(n, -1, dtype=np.int64)
    seen = np.full(n, -1, dtype=np.int64)
    buf = np.empty(max(n, 1), dtype=np.int32)
    top = 0
    for x in range(n):
        v = order[x]
        k = 0
        for a in range(first[v], first[v + 1]):
            r = rank[head[a]]
            if r > x and seen[r] != x:
                seen[r] = x
                buf[k] = r
                k += 1
        c = child[x]
        while c >= 0:
            for a in range(up_first[c], up_first[c + 1]):
                y = up_head[a]
                if y != x and seen[y] != x:
                    seen[y] = x
                    buf[k] = y
                    k += 1
            c = sibling[c]
        row = np.sort(buf[:k])
        if top + k > cap:
            cap = max(2 * cap, top + k)
            grown = np.empty(cap, dtype=np.int32)
            grown[:top] = up_head[:top]
            up_head = grown
        up_head[top:top + k] = row
        top += k
        up_first[x + 1] = top
        if k:
            p = row[0]
            parent[x] = p
            sibling[x] = child[p]
            child[p] = x
    return up_first, up_head[:top].copy(), parent


@njit(cache=True, nogil=True)
def down_graph(up_first, up_head):
    """The transpose: for every ``y`` the arcs ``(x, y)`` below it, ``x``
    ascending (``down_tail``, ``down_arc``), and ``arc_low[a]`` = ``x``."""
    n = up_first.shape[0] - 1
    m = up_head.shape[0]
    arc_low = np.empty(m, dtype=np.int32)
    for x in range(n):
        for a in range(up_first[x], up_first[x + 1]):
            arc_low[a] = x
    # arcs by head, in arc order: for each head its tails ascending
    down_first, down_arc = group_by(up_head, n)
    down_tail = np.empty(m, dtype=np.int32)
    for d in range(m):
        down_tail[d] = arc_low[down_arc[d]]
    return down_first, down_tail, down_arc, arc_low


@njit(cache=True, nogil=True)
def tree_levels(parent):
    """Nodes grouped by height in the elimination tree (leaves 0):
    ``(level_first, level_nodes)``, and the longest chain to a root."""
    n = parent.shape[0]
    height = np.zeros(n, dtype=np.int64)
    for x in range(n):                       # a parent ranks above its children
        p = parent[x]
        if p >= 0 and height[x] + 1 > height[p]:
            height[p] = height[x] + 1
    depth = np.ones(n, dtype=np.int64)
    longest = 0
    for x in range(n - 1, -1, -1):
        p = parent[x]
        if p >= 0:
            depth[x] = depth[p] + 1
        if depth[x] > longest:
            longest = depth[x]
    nlev = 0
    for x in range(n):
        if height[x] + 1 > nlev:
            nlev = height[x] + 1
    level_first, level_nodes = group_by(height, nlev)
    return level_first, level_nodes, longest


@njit(cache=True, nogil=True)
def _find(up_first, up_head, x, y):
    """The arc ``(x, y)``, ``x < y`` (binary search in the sorted ``up(x)``);
    -1 if there is none."""
    lo = up_first[x]
    hi = up_first[x + 1] - 1
    while lo <= hi:
        mid = (lo + hi) >> 1
        h = up_head[mid]
        if h < y:
            lo = mid + 1
        elif h > y:
            hi = mid - 1
        else:
            return mid
    return -1


@njit(cache=True, nogil=True)
def edge_arcs(offsets, targets, rank, up_first, up_head):
    """For every input edge its supergraph arc (-1: a self-loop) and
    whether it runs upward (lower rank to higher)."""
    n = offsets.shape[0] - 1
    m = targets.shape[0]
    arc = np.full(m, -1, dtype=np.int64)
    up = np.zeros(m, dtype=np.bool_)
    for u in range(n):
        ru = rank[u]
        for e in range(offsets[u], offsets[u + 1]):
            rv = rank[targets[e]]
            if rv > ru:
                arc[e] = _find(up_first, up_head, ru, rv)
                up[e] = True
            elif rv < ru:
                arc[e] = _find(up_first, up_head, rv, ru)
    return arc, up


# -- customization ----------------------------------------------------------------
# The metric's arrays are the caller's (``Metric`` reuses them from one
# customization to the next: fresh arrays cost page faults that, on small
# graphs, took as long as the customization itself).

@njit(cache=True, nogil=True)
def tree_parts(parent, up_first, down_first, down_tail, down_arc, parts):
    """Nodes grouped for a customization on ``parts`` threads: groups
    ``0..parts-1`` are unions of whole subtrees of the elimination tree
    (independent: a node's basic weights read only its descendants', its
    perfect ones only its ancestors'), group ``parts`` the nodes above
    them; each group ascending by rank. ``(part_first, part_nodes)``.

    Subtrees are packed by their basic-customization work (triangles);
    the heaviest is split (its root joins the top) until the packing is
    balanced within 5%, the top growing by one node per split (on a
    250k-node city: 403 nodes and 19% of the triangles)."""
    n = parent.shape[0]
    sub = np.zeros(n, dtype=np.float64)
    for x in range(n):
        w = 1.0
        for d in range(down_first[x], down_first[x + 1]):
            w += up_first[down_tail[d] + 1] - down_arc[d] - 1
        sub[x] += w
        p = parent[x]
        if p >= 0:
            sub[p] += sub[x]
    child_first = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        if parent[x] >= 0:
            child_first[parent[x] + 1] += 1
    for x in range(n):
        child_first[x + 1] += child_first[x]
    fill = child_first[:n].copy()
    child = np.empty(max(child_first[n], 1), dtype=np.int64)
    for x in range(n):
        p = parent[x]
        if p >= 0:
            child[fill[p]] = x
            fill[p] += 1
    label = np.full(n, -1, dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    nc = 0
    for x in range(n):
        if parent[x] < 0:
            cand[nc] = x
            nc += 1
    bins = np.zeros(parts, dtype=np.float64)
    # a split moves one node to the top: on a 250k-node city the top
    # separator's chain took ~400 before the halves below it balanced (256
    # splits left every node in the top, customized on one thread); the
    # packings' candidates summed stay under 64 n, so a tree that never
    # balances (a long chain with a leaf at every node) costs O(n log n)
    packed = 0
    while nc > 0 and packed <= 64 * n:
        packed += nc
        order = np.argsort(-sub[cand[:nc]])
        bins[:] = 0.0
        total = 0.0
        for i in range(nc):
            x = cand[order[i]]
            b = np.argmin(bins)
            bins[b] += sub[x]
            label[x] = b
            total += sub[x]
        if parts <= 1 or bins.max() <= 1.05 * total / parts:
            break
        heavy = cand[order[0]]                # split the heaviest subtree
        label[heavy] = parts
        cand[order[0]] = cand[nc - 1]
        nc -= 1
        for c in range(child_first[heavy], child_first[heavy + 1]):
            cand[nc] = child[c]
            nc += 1
    for x in range(n - 1, -1, -1):            # a parent ranks above its children
        if label[x] < 0:
            label[x] = label[parent[x]] if parent[x] >= 0 else parts
    return group_by(label, parts + 1)          # (part_first, part_nodes)


class Topology(NamedTuple):
    """The metric-independent arrays a customization reads: each input
    edge's arc and direction, the supergraph up and down, the subtree groups."""
    edge_arc: np.ndarray
    edge_up: np.ndarray
    up_first: np.ndarray
    up_head: np.ndarray
    down_first: np.ndarray
    down_tail: np.ndarray
    down_arc: np.ndarray
    part_first: np.ndarray
    part_nodes: np.ndarray


class Weights(NamedTuple):
    """A basic customization's output: each arc's two weights, the lower
    triangle each came from (-1: the input edge ``src_*``)."""
    w_up: np.ndarray
    w_down: np.ndarray
    mid_up: np.ndarray
    mid_down: np.ndarray
    src_up: np.ndarray
    src_down: np.ndarray


@njit(cache=True, nogil=True)
def _initial(edge_arc, edge_up, cost, w_up, w_down, src_up, src_down, mid_up, mid_down):
    w_up[:] = INF
    w_down[:] = INF
    src_up[:] = -1
    src_down[:] = -1
    mid_up[:] = -1
    mid_down[:] = -1
    for e in range(edge_arc.shape[0]):
        a = edge_arc[e]
        if a < 0:
            continue
        c = cost[e]
        if edge_up[e]:
            if c < w_up[a]:                       # the cheapest parallel edge, first on ties
                w_up[a] = c
                src_up[a] = e
        elif c < w_down[a]:
            w_down[a] = c
            src_down[a] = e


# inlined: a call per node passing a dozen arrays costs more than the work
# of a small node (measured when this was written)
@njit(cache=True, nogil=True, inline="always")
def _basic_node(x, up_first, up_head, down_first, down_tail, down_arc, w_up, w_down,
                mid_up, mid_down, mark):
    for a in range(up_first[x], up_first[x + 1]):
        mark[up_head[a]] = a
    for d in range(down_first[x], down_first[x + 1]):
        z = down_tail[d]
        azx = down_arc[d]
        wxz = w_down[azx]                          # x -> z
        wzx = w_up[azx]                            # z -> x
        if wxz == INF and wzx == INF:
            continue
        # up(z) is sorted: the arcs after (z, x) lead to y > x, all in up(x)
        for b in range(azx + 1, up_first[z + 1]):
            axy = mark[up_head[b]]
            s = wxz + w_up[b]
            if s < w_up[axy]:
                w_up[axy] = s
                mid_up[axy] = z
            s = w_down[b] + wzx
            if s < w_down[axy]:
                w_down[axy] = s
                mid_down[axy] = z


@njit(cache=True, nogil=True, inline="always")
def _lower(w, a, s):
    """Arc ``a``'s weight becomes ``s`` if that is less (a triangle's
    relaxation)."""
    if s < w[a]:
        w[a] = s


@njit(cache=True, nogil=True, inline="always")
def _perfect_node(x, up_first, up_head, w_up, w_down):
    # every pair z < y of up(x) is a triangle: up(x) is a clique, so y is in
    # the sorted up(z) and one forward-only pointer finds the arc (z, y)
    # (sequential reads: no marks, no random access)
    lo = up_first[x]
    hi = up_first[x + 1]
    for a in range(lo, hi - 1):
        z = up_head[a]
        b = up_first[z]
        for axy in range(a + 1, hi):
            y = up_head[axy]
            while up_head[b] < y:
                b += 1
            # x < z < y: arcs a = (x, z), b = (z, y), axy = (x, y)
            _lower(w_up, axy, w_up[a] + w_up[b])
            _lower(w_down, axy, w_down[b] + w_down[a])
            _lower(w_up, a, w_up[axy] + w_down[b])
            _lower(w_down, a, w_up[b] + w_down[axy])


@njit(cache=True, nogil=True)
def _basic_nodes(nodes, topo, wts, mark):
    up_first, up_head, down_first, down_tail, down_arc = (
        topo.up_first, topo.up_head, topo.down_first, topo.down_tail, topo.down_arc)
    w_up, w_down, mid_up, mid_down = wts.w_up, wts.w_down, wts.mid_up, wts.mid_down
    for i in range(nodes.shape[0]):
        _basic_node(nodes[i], up_first, up_head, down_first, down_tail, down_arc, w_up,
                    w_down, mid_up, mid_down, mark)


@njit(cache=True, nogil=True)
def _perfect_nodes(nodes, up_first, up_head, w_up, w_down):
    for i in range(nodes.shape[0] - 1, -1, -1):
        _perfect_node(nodes[i], up_first, up_head, w_up, w_down)


@njit(cache=True, nogil=True, parallel=True)
def _basic_parts(topo, wts, marks):
    part_first, part_nodes = topo.part_first, topo.part_nodes
    for p in prange(part_first.shape[0] - 2):
        _basic_nodes(part_nodes[part_first[p]:part_first[p + 1]], topo, wts,
                     marks[get_thread_id()])


@njit(cache=True, nogil=True, parallel=True)
def _perfect_parts(part_first, part_nodes, up_first, up_head, w_up, w_down):
    for p in prange(part_first.shape[0] - 2):
        _perfect_nodes(part_nodes[part_first[p]:part_first[p + 1]], up_first, up_head, w_up,
                       w_down)


@njit(cache=True, nogil=True)
def customize(topo, cost, marks, parallel, wts):
    """Basic customization of :class:`Topology` ``topo`` for edge costs
    ``cost`` into :class:`Weights` ``wts``: ``w_up``/``w_down`` the
    shortest paths through lower nodes, ``mid_*`` the lower triangle
    (``z``, or -1: the input edge ``src_*``) each came from. The
    elimination-tree query is exact on these weights. With ``parallel``
    the independent subtree groups of ``tree_parts`` run on the thread
    pool, then the top on this thread (bit for bit the sequential result);
    without, every node in rank order. ``marks``: ``(threads, n)``
    scratch, any content: a node reads only the marks it set itself."""
    up_first, up_head, down_first, down_tail, down_arc = (
        topo.up_first, topo.up_head, topo.down_first, topo.down_tail, topo.down_arc)
    w_up, w_down, mid_up, mid_down = wts.w_up, wts.w_down, wts.mid_up, wts.mid_down
    _initial(topo.edge_arc, topo.edge_up, cost, w_up, w_down, wts.src_up, wts.src_down, mid_up,
             mid_down)
    n = up_first.shape[0] - 1
    if parallel:
        _basic_parts(topo, wts, marks)
        part_first = topo.part_first
        top = topo.part_nodes[part_first[part_first.shape[0] - 2]:]
        _basic_nodes(top, topo, wts, marks[0])
    else:
        mark = marks[0]
        for x in range(n):
            _basic_node(x, up_first, up_head, down_first, down_tail, down_arc, w_up, w_down,
                        mid_up, mid_down, mark)


@njit(cache=True, nogil=True)
def perfect(up_first, up_head, part_first, part_nodes, parallel, w_up, w_down, b_up, b_down):
    """Perfect customization of basic weights ``w_up``/``w_down`` (copied to
    ``b_up``/``b_down`` first), top-down: then every arc holds the true
    distance. The top group on this thread, then (``parallel``) the
    subtree groups on the pool."""
    b_up[:] = w_up
    b_down[:] = w_down
    if parallel:
        top = part_nodes[part_first[part_first.shape[0] - 2]:]
        _perfect_nodes(top, up_first, up_head, w_up, w_down)
        _perfect_parts(part_first, part_nodes, up_first, up_head, w_up, w_down)
    else:
        for x in range(up_first.shape[0] - 2, -1, -1):
            _perfect_node(x, up_first, up_head, w_up, w_down)


@njit(cache=True, nogil=True)
def query_graph(up_first, up_head, w, basic, first, head, wt, arc):
    """The upward CSR of the directions a perfect customization keeps
    (finite, and not strictly below the ``basic`` weight: such an arc is
    on no shortest path) into ``first`` (n + 1) and the first entries of
    ``head``/``wt``/``arc`` (arc: the supergraph arc, for unpacking);
    returns how many."""
    n = up_first.shape[0] - 1
    k = 0
    first[0] = 0
    for x in range(n):
        for a in range(up_first[x], up_first[x + 1]):
            v = w[a]
            if v < INF and not (v < basic[a] * (1.0 - _TIE)):
                head[k] = up_head[a]
                wt[k] = v
                arc[k] = a
                k += 1
        first[x + 1] = k
    return k


# -- queries ----------------------------------------------------------------------

class QueryGraph(NamedTuple):
    """An upward query graph: CSR over ranks, heads, weights and the
    supergraph arc of each edge."""
    first: np.ndarray
    head: np.ndarray
    w: np.ndarray
    arc: np.ndarray


class Unpack(NamedTuple):
    """What turns a path's arcs into input edges and their summed cost:
    the supergraph, each arc's lower end, the triangle or input edge each
    direction came from, the input edges' costs."""
    up_first: np.ndarray
    up_head: np.ndarray
    arc_low: np.ndarray
    mid_up: np.ndarray
    mid_down: np.ndarray
    src_up: np.ndarray
    src_down: np.ndarray
    cost: np.ndarray


class PairRows(NamedTuple):
    """Per-thread scratch rows of the pair searches: labels (inf between
    searches) and the edges that reached each node."""
    df: np.ndarray
    db: np.ndarray
    pf: np.ndarray
    pb: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def _relax(x, d, first, head, w, dist, pred):
    for e in range(first[x], first[x + 1]):
        h = head[e]
        nd = d + w[e]
        if nd < dist[h]:
            dist[h] = nd
            pred[h] = e


@njit(cache=True, nogil=True)
def pair(parent, ff, fh, fw, bf, bh, bw, s, t, df, db, pf, pb):
    """Elimination-tree query from rank ``s`` to rank ``t``: ``(distance,
    meeting rank)``, ``(inf, -1)`` if none. ``df``/``db`` must be inf
    everywhere and are left so; ``pf``/``pb`` get the query-graph edge
    each reached node was last improved by."""
    best, meet, _ = _pair(parent, ff, fh, fw, bf, bh, bw, s, t, df, db, pf, pb)
    return best, meet


@njit(cache=True, nogil=True, inline="always")
def _pair(parent, ff, fh, fw, bf, bh, bw, s, t, df, db, pf, pb):
    """:func:`pair` and the tree nodes it went through (``expanded``)."""
    df[s] = 0.0
    db[t] = 0.0
    _, _, _, _, best, meet, count = _pair_run(parent, ff, fh, fw, bf, bh, bw, df, db, pf, pb,
                                              s, t, False, INF, -1, 0, _UNLIMITED)
    reset(parent, s, t, df, db)
    return best, meet, count


#: :func:`pair_steps`' meeting rank while it is paused
PAUSED = -3
#: :func:`pair_steps`' int64 registers: the two chains' nodes, whether
#: they met, the best meeting rank, the tree nodes gone through (-1: the
#: next call begins a search)
R_X, R_Y, R_COMMON, R_MEET, R_COUNT = 0, 1, 2, 3, 4
REGISTERS = 5
_UNLIMITED = 1 << 62


@njit(cache=True, nogil=True)
def pair_steps(parent, ff, fh, fw, bf, bh, bw, s, t, df, db, pf, pb, regs, best_reg, budget):
    """:func:`pair` going through at most ``budget`` tree nodes a call:
    ``(distance, meeting rank, nodes gone through)``, the meeting rank
    ``PAUSED`` until it is finished. A search begins when
    ``regs[R_COUNT] == -1`` and a finished one sets it back (and leaves
    ``df``/``db`` inf again); one stopped midway is cleared by
    :func:`reset`."""
    count = regs[R_COUNT]
    if count < 0:
        df[s] = 0.0
        db[t] = 0.0
        x, y, common, best, meet, count = s, t, False, INF, -1, 0
    else:
        x, y, common, meet = regs[R_X], regs[R_Y], regs[R_COMMON] != 0, regs[R_MEET]
        best = best_reg[0]
    state, x, y, common, best, meet, count = _pair_run(parent, ff, fh, fw, bf, bh, bw, df, db,
                                                       pf, pb, x, y, common, best, meet,
                                                       count, count + budget)
    if state == 1:
        regs[R_X] = x
        regs[R_Y] = y
        regs[R_COMMON] = 1 if common else 0
        regs[R_MEET] = meet
        regs[R_COUNT] = count
        best_reg[0] = best
        return INF, PAUSED, count
    regs[R_COUNT] = -1
    reset(parent, s, t, df, db)
    return best, meet, count


@njit(cache=True, nogil=True, inline="always")
def _pair_run(parent, ff, fh, fw, bf, bh, bw, df, db, pf, pb, x, y, common, best, meet, count,
              stop):
    """The two chains of :func:`pair` from ``x`` and ``y``, then (once
    ``common``) their common ancestors, until done or ``stop`` tree nodes
    are gone through: ``(state, x, y, common, best, meet, count)``, state
    0 finished, 1 paused."""
    while not common and x != y:      # the two chains, lower rank first, until they meet
        if count >= stop:
            return 1, x, y, common, best, meet, count
        count += 1
        if x >= 0 and (y < 0 or x < y):
            if df[x] < INF:
                _relax(x, df[x], ff, fh, fw, df, pf)
            x = parent[x]
        else:
            if db[y] < INF:
                _relax(y, db[y], bf, bh, bw, db, pb)
            y = parent[y]
    common = True
    while x >= 0:                     # the common ancestors
        if count >= stop:
            return 1, x, y, common, best, meet, count
        count += 1
        v = df[x] + db[x]
        if v < best:
            best = v
            meet = x
        if df[x] < best:
            _relax(x, df[x], ff, fh, fw, df, pf)
        if db[x] < best:
            _relax(x, db[x], bf, bh, bw, db, pb)
        x = parent[x]
    return 0, x, y, common, best, meet, count


@njit(cache=True, nogil=True)
def reset(parent, s, t, df, db):
    """Set ``df``/``db`` back to inf on the chains of ``s`` and ``t``."""
    x = s
    while x >= 0:
        df[x] = INF
        db[x] = INF
        x = parent[x]
    x = t
    while x >= 0:
        df[x] = INF
        db[x] = INF
        x = parent[x]


@njit(cache=True, nogil=True)
def _expand(code, up_first, up_head, arc_low, mid_up, mid_down, src_up, src_down, stack,
            out, p, write):
    """The input edges of arc direction ``code`` (``2 a + 1``: ``a`` upward,
    ``2 a``: downward) in walking order, into ``out`` from ``p`` when
    ``write``; returns the new ``p``."""
    stack[0] = code
    top = 1
    while top > 0:
        top -= 1
        c = stack[top]
        a = c >> 1
        x = arc_low[a]
        y = up_head[a]
        if c & 1:                                 # x -> y
            z, edge, tail, head = mid_up[a], src_up[a], x, y
        else:                                     # y -> x
            z, edge, tail, head = mid_down[a], src_down[a], y, x
        if z < 0:
            if write:
                out[p] = edge
            p += 1
            continue
        # tail -> z (down of (z, tail)), then z -> head (up of (z, head))
        stack[top] = 2 * _find(up_first, up_head, z, head) + 1
        stack[top + 1] = 2 * _find(up_first, up_head, z, tail)
        top += 2
    return p


@njit(cache=True, nogil=True)
def _walk(s, t, meet, fa, ba, pf, pb, up_first, up_head, arc_low, mid_up, mid_down, src_up,
          src_down, stack, out, write):
    """Expand the path the last :func:`pair` found (up from ``s`` to
    ``meet``, down to ``t``); returns the number of input edges."""
    nf = 0
    x = meet
    while x != s:
        nf += 1
        x = arc_low[fa[pf[x]]]
    ups = np.empty(nf, dtype=np.int64)           # the upward arcs, met from the top
    x = meet
    for i in range(nf - 1, -1, -1):
        ups[i] = fa[pf[x]]
        x = arc_low[ups[i]]
    p = 0
    for i in range(nf):
        p = _expand(2 * ups[i] + 1, up_first, up_head, arc_low, mid_up, mid_down, src_up,
                    src_down, stack, out, p, write)
    x = meet
    while x != t:
        a = ba[pb[x]]
        p = _expand(2 * a, up_first, up_head, arc_low, mid_up, mid_down, src_up, src_down,
                    stack, out, p, write)
        x = arc_low[a]
    return p


@njit(cache=True, nogil=True)
def path(parent, ff, fh, fw, fa, bf, bh, bw, ba, s, t, df, db, pf, pb, up_first, up_head,
         arc_low, mid_up, mid_down, src_up, src_down, cost, stack):
    """One shortest path: ``(cost, edges, expanded)``, the input edges in
    order and their costs summed in that order (``(inf, empty)`` if none)
    and the tree nodes the query went through."""
    best, meet, count = _pair(parent, ff, fh, fw, bf, bh, bw, s, t, df, db, pf, pb)
    if meet < 0:
        return INF, np.empty(0, dtype=np.int64), count
    c, edges = unpack_path(s, t, meet, fa, ba, pf, pb, up_first, up_head, arc_low, mid_up,
                           mid_down, src_up, src_down, cost, stack)
    return c, edges, count


@njit(cache=True, nogil=True, inline="always")
def unpack_path(s, t, meet, fa, ba, pf, pb, up_first, up_head, arc_low, mid_up, mid_down,
                src_up, src_down, cost, stack):
    """The path a query found (meeting at ``meet``): ``(cost, edges)``."""
    none = np.empty(0, dtype=np.int64)
    k = _walk(s, t, meet, fa, ba, pf, pb, up_first, up_head, arc_low, mid_up, mid_down, src_up,
              src_down, stack, none, False)
    edges = np.empty(k, dtype=np.int64)
    _walk(s, t, meet, fa, ba, pf, pb, up_first, up_head, arc_low, mid_up, mid_down, src_up,
          src_down, stack, edges, True)
    c = 0.0
    for i in range(k):
        c += cost[edges[i]]
    return c, edges


@njit(cache=True, nogil=True, parallel=True)
def pair_distances(parent, fwd, bwd, s, t, out, rows):
    """``out[i]``: distance from rank ``s[i]`` to rank ``t[i]`` over the
    :class:`QueryGraph` ``fwd`` and ``bwd``; a row of ``rows``
    (:class:`PairRows`) per thread."""
    ff, fh, fw, bf, bh, bw = fwd.first, fwd.head, fwd.w, bwd.first, bwd.head, bwd.w
    df, db, pf, pb = rows
    for i in prange(s.shape[0]):
        row = get_thread_id()
        out[i] = pair(parent, ff, fh, fw, bf, bh, bw, s[i], t[i], df[row], db[row], pf[row],
                      pb[row])[0]


@njit(cache=True, nogil=True, parallel=True)
def pair_paths(parent, fwd, bwd, s, t, rows, unpack, depth, offsets, edges, costs, counting,
               expanded):
    """Many routes in two calls over the :class:`QueryGraph` ``fwd`` and
    ``bwd`` (a row of ``rows``, :class:`PairRows`, per thread; arcs
    unpacked by :class:`Unpack` ``unpack``): with ``counting`` the number
    of edges of pair ``i`` into ``offsets[i + 1]`` and the tree nodes its
    query went through into ``expanded[i]``; then the edges into
    ``edges[offsets[i]:offsets[i + 1]]`` and their summed costs into
    ``costs[i]`` (inf, no edges, where unreachable)."""
    for i in prange(s.shape[0]):
        _pair_path(i, get_thread_id(), parent, fwd, bwd, s, t, rows, unpack, depth, offsets,
                   edges, costs, counting, expanded)


@njit(cache=True, nogil=True)
def pair_paths_serial(parent, fwd, bwd, s, t, rows, unpack, depth, offsets, edges, costs,
                      counting, expanded):
    """:func:`pair_paths` on the calling thread (row 0 of ``rows``): a
    parallel kernel costs 10-20 us a call even on one thread, more than a
    few routes' queries."""
    for i in range(s.shape[0]):
        _pair_path(i, 0, parent, fwd, bwd, s, t, rows, unpack, depth, offsets, edges, costs,
                   counting, expanded)


@njit(cache=True, nogil=True, inline="always")
def _pair_path(i, row, parent, fwd, bwd, s, t, rows, unpack, depth, offsets, edges, costs,
               counting, expanded):
    """:func:`pair_paths` of pair ``i`` in scratch row ``row``."""
    ff, fh, fw, fa = fwd
    bf, bh, bw, ba = bwd
    df, db, pf, pb = rows
    up_first, up_head, arc_low, mid_up, mid_down, src_up, src_down, cost = unpack
    stack = np.empty(2 * depth + 4, dtype=np.int64)
    best, meet, count = _pair(parent, ff, fh, fw, bf, bh, bw, s[i], t[i], df[row], db[row],
                              pf[row], pb[row])
    if counting:
        expanded[i] = count
    if meet < 0:
        if counting:
            offsets[i + 1] = 0
        else:
            costs[i] = INF
        return
    if counting:
        none = np.empty(0, dtype=np.int64)
        offsets[i + 1] = _walk(s[i], t[i], meet, fa, ba, pf[row], pb[row], up_first, up_head,
                               arc_low, mid_up, mid_down, src_up, src_down, stack, none, False)
    else:
        out = edges[offsets[i]:offsets[i + 1]]
        k = _walk(s[i], t[i], meet, fa, ba, pf[row], pb[row], up_first, up_head, arc_low,
                  mid_up, mid_down, src_up, src_down, stack, out, True)
        c = 0.0
        for j in range(k):
            c += cost[out[j]]
        costs[i] = c


@njit(cache=True, nogil=True, inline="always")
def _relax_plain(x, d, first, head, w, dist):
    for e in range(first[x], first[x + 1]):
        h = head[e]
        nd = d + w[e]
        if nd < dist[h]:
            dist[h] = nd


@njit(cache=True, nogil=True)
def _up_chain(x, parent, first, head, w, dist, nodes, dists):
    """Distances up the chain of ``x`` from 0 at ``x``: the reached nodes
    and their distances into ``nodes``/``dists`` (returns how many);
    ``dist`` must be inf on the chain and is left so."""
    dist[x] = 0.0
    c = 0
    y = x
    while y >= 0:
        d = dist[y]
        if d < INF:
            nodes[c] = y
            dists[c] = d
            c += 1
            _relax_plain(y, d, first, head, w, dist)
        y = parent[y]
    y = x
    while y >= 0:
        dist[y] = INF
        y = parent[y]
    return c


@njit(cache=True, nogil=True, parallel=True)
def bucket_matrix(parent, af, ah, aw, bf, bh, bw, srcs, tgts, dist, space):
    """Many-to-many by buckets (``navcore_csr.buckets``) over the
    elimination tree: the chain of every target (graph b) fills the
    buckets of the nodes it reaches, the chain of every source (graph a)
    scans them. ``(S, T)``, inf where unreachable. ``space``: the longest
    chain; ``dist``: per-thread rows, all inf."""
    ns = srcs.shape[0]
    nt = tgts.shape[0]
    res = np.full((ns, nt), INF)
    if ns == 0 or nt == 0:
        return res
    bn = np.empty((nt, space), dtype=np.int32)
    bd = np.empty((nt, space), dtype=np.float64)
    cnt = np.empty(nt, dtype=np.int64)
    for j in prange(nt):
        cnt[j] = _up_chain(tgts[j], parent, bf, bh, bw, dist[get_thread_id()], bn[j], bd[j])
    first, btgt, bdst = fill_buckets(bn, bd, cnt, parent.shape[0])
    rows = dist.shape[0]
    fn = np.empty((rows, space), dtype=np.int32)
    fd = np.empty((rows, space), dtype=np.float64)
    for i in prange(ns):
        row = get_thread_id()
        c = _up_chain(srcs[i], parent, af, ah, aw, dist[row], fn[row], fd[row])
        scan_buckets(res[i], fn[row], fd[row], c, first, btgt, bdst)
    return res
