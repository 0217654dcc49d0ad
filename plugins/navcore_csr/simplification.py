"""Graph simplification (seed 001): contract corridors for exact, faster search.

:func:`simplify` keeps the nodes where a route can choose (junctions, ends,
nodes where a one-way street meets a two-way one) and replaces each chain
of pass-through nodes between two kept nodes by one edge per direction it
can be walked, costing the chain's sum. A chain that ends in a dead end is
folded away: no edge, since no shortest path between two other nodes
enters it. Directed graphs work too: a one-way corridor is a chain with
one edge.

A query maps a start inside a chain to both chain ends with the partial
costs (only the ends it can reach), a goal likewise, adds the route that
stays inside one chain when start and goal share it, and runs A* on the
small graph. The path is expanded back into the original nodes, so the
result is the same optimal cost as a search on the original graph.

The simplified graph describes the graph as it was built: an update marks
it stale (:attr:`SimplifiedGraph.current`), and :func:`simplify` or an
``algorithm="simplified"`` query rebuilds it.

>>> import navcore
>>> from navcore_csr import simplify
>>> world = navcore.World()
>>> g = world.add_graph("line", type="csr", src=[0, 1, 2, 3], dst=[1, 2, 3, 4],
...                     cost=[1.0, 2.0, 3.0, 4.0], directed=False)
>>> s = simplify(g)
>>> s.num_nodes, s.num_edges, s.num_chains          # 0 and 4 kept, one chain
(2, 2, 1)
>>> len(s.levels)             # too small for a second level to pay
1
>>> r = world.find_path("line", 1, 3, algorithm="simplified")
>>> r.nodes.tolist(), r.cost
([1, 2, 3], 5.0)
"""
from __future__ import annotations

import threading
import time

import numpy as np

from navcore.errors import QueryError
from navcore.types import PathResult, PathStatus

from . import _simplify as K
from ._build import _row_ids
from .search import _HKIND, _NO_POSITIONS, SearchScratch, check_node, heuristic_scale
from .storage import build_csr

_EXT_KEY = "navcore_csr.simplified"
#: automatic levels stop below this many nodes (a search there is cheap)...
AUTO_MIN_NODES = 256
#: ...or when a level would keep more than this fraction of the one below
AUTO_MAX_FRACTION = 0.6


class Level:
    """One round of contraction: a graph below (CSR arrays, node ids of
    that graph) and the small graph above it.

    ``kept`` (int32) lists the ids below of the small graph's nodes and
    ``csr`` is its CSR (edge data ``chain``: the chain an edge stands for,
    -1 for an edge copied from below; ``rev``: walked from the chain's end
    ``b`` to ``a``). Chain ``c`` holds ``chain_nodes[chain_off[c]:chain_off[c+1]]``
    in order from end ``chain_a[c]`` to end ``chain_b[c]`` (-1: a dead end).
    """

    def __init__(self, offsets, targets, cost, reverse, walkable):
        n = offsets.shape[0] - 1
        roff, rsrc, reid = reverse
        kind = np.empty(n, dtype=np.int8)
        nb1 = np.empty(n, dtype=np.int32)
        nb2 = np.empty(n, dtype=np.int32)
        K._classify(offsets, targets, cost, roff, rsrc, reid, walkable, kind, nb1, nb2)
        self.node_chain = np.full(n, -1, dtype=np.int32)
        self.node_pos = np.full(n, -1, dtype=np.int32)
        chain_off = np.empty(n + 1, dtype=np.int64)
        nodes = np.empty(n, dtype=np.int32)
        fwd, bwd, fend, bend = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
        ca = np.empty(n, dtype=np.int32)
        cb = np.empty(n, dtype=np.int32)
        nc, fill = K._chains(offsets, targets, cost, roff, rsrc, reid, walkable, kind, nb1,
                             nb2, self.node_chain, self.node_pos, chain_off, nodes, fwd, bwd,
                             ca, cb, fend, bend)
        self.chain_off = chain_off[:nc + 1].copy()
        self.chain_nodes = nodes[:fill].copy()
        self.chain_fwd = fwd[:fill].copy()   # cost from the previous chain node (or a)
        self.chain_bwd = bwd[:fill].copy()   # cost back to the previous node
        self.chain_a = ca[:nc].copy()
        self.chain_b = cb[:nc].copy()
        self.chain_fend = fend[:nc].copy()   # last chain node -> b
        self.chain_bend = bend[:nc].copy()   # b -> last chain node
        kept_mask = (kind == K.KEPT) | (kind == K.LEAF)
        self.kept = np.flatnonzero(kept_mask).astype(np.int32)
        self.kept_index = np.full(n, -1, dtype=np.int32)
        self.kept_index[self.kept] = np.arange(self.kept.size, dtype=np.int32)
        self.csr = self._small_csr(offsets, targets, cost, kept_mask)
        self.below_nodes = n
        self.below_edges = int(targets.shape[0])

    def _small_csr(self, offsets, targets, cost, kept_mask):
        rows = _row_ids(offsets)
        direct = kept_mask[rows] & kept_mask[targets] & (rows != targets) & np.isfinite(cost)
        firsts = self.chain_off[:-1]
        # every chain has at least one node, so reduceat's segments are not empty
        fsum = np.add.reduceat(self.chain_fwd, firsts) if firsts.size else np.empty(0)
        bsum = np.add.reduceat(self.chain_bwd, firsts) if firsts.size else np.empty(0)
        f_total = fsum + self.chain_fend
        b_total = bsum + self.chain_bend
        both_ends = (self.chain_b >= 0) & (self.chain_a != self.chain_b)
        fmask = both_ends & np.isfinite(f_total)
        bmask = both_ends & np.isfinite(b_total)
        ki = self.kept_index
        cid = np.arange(self.chain_a.size, dtype=np.int32)
        nd, nf, nb = int(direct.sum()), int(fmask.sum()), int(bmask.sum())
        src = np.concatenate([ki[rows[direct]], ki[self.chain_a[fmask]], ki[self.chain_b[bmask]]])
        dst = np.concatenate([ki[targets[direct]], ki[self.chain_b[fmask]],
                              ki[self.chain_a[bmask]]])
        cost = np.concatenate([cost[direct], f_total[fmask], b_total[bmask]])
        chain = np.concatenate([np.full(nd, -1, np.int32), cid[fmask], cid[bmask]])
        rev = np.concatenate([np.zeros(nd + nf, np.bool_), np.ones(nb, np.bool_)])
        return build_csr(src, dst, {"cost": cost, "chain": chain, "rev": rev},
                         num_nodes=self.kept.size, sort=True, dedup=False)

    @property
    def num_nodes(self) -> int:
        return int(self.kept.size)

    @property
    def nbytes(self) -> int:
        arrays = (self.node_chain, self.node_pos, self.chain_off, self.chain_nodes,
                  self.chain_fwd, self.chain_bwd, self.chain_a, self.chain_b,
                  self.chain_fend, self.chain_bend, self.kept, self.kept_index)
        return int(sum(a.nbytes for a in arrays) + self.csr.nbytes)

    # -- query helpers (ids below unless said otherwise) ------------------------
    def lift(self, ends, outward):
        """Map entry points ``(node below, cost, parent, x, side)`` to the
        small graph: a kept node goes up as itself (side -1), a chain node
        to the ends of its chain it can reach (side 0: end a, 1: end b),
        ``outward`` from the node or else to it, adding the partial cost.
        A node reached twice keeps the cheaper entry."""
        out = []
        for idx, e in enumerate(ends):
            x, c = e[0], e[1]
            i = self.kept_index[x]
            if i >= 0:
                cand = ((int(i), c, -1),)
            else:
                na, ca, nb, cb = K._exits(self.node_chain, self.node_pos, self.chain_off,
                                          self.chain_fwd, self.chain_bwd, self.chain_a,
                                          self.chain_b, self.chain_fend, self.chain_bend,
                                          self.kept_index, x, outward)
                cand = ((na, c + ca, 0), (nb, c + cb, 1))
            for node, cost, side in cand:
                if node < 0:
                    continue
                for k, old in enumerate(out):
                    if old[0] == node:
                        if cost < old[1]:
                            out[k] = (node, cost, idx, x, side)
                        break
                else:
                    out.append((node, cost, idx, x, side))
        return out

    def walk(self, x, side, outward):
        """Ids below from ``x`` to its chain end ``side`` (``outward``) or
        from that end to ``x``; just ``[x]`` for a kept node (side -1)."""
        if side < 0:
            return np.array([x], np.int32)
        ch = self.node_chain[x]
        p = int(self.node_pos[x])
        lo, hi = int(self.chain_off[ch]), int(self.chain_off[ch + 1])
        if side == 0:
            seg = np.concatenate([[self.chain_a[ch]], self.chain_nodes[lo:lo + p + 1]])
        else:
            seg = np.concatenate([self.chain_nodes[lo + p:hi], [self.chain_b[ch]]])[::-1]
        # seg now runs from the end to x
        return (seg[::-1] if outward else seg).astype(np.int32)

    def inside(self, x, y) -> float:
        """Cost from ``x`` to ``y`` staying inside their common chain (0 when
        they are one node: start and goal met on the way up)."""
        if x == y:
            return 0.0
        ch = self.node_chain[x]
        if ch < 0 or ch != self.node_chain[y]:
            return np.inf
        lo = self.chain_off[ch]
        p, q = self.node_pos[x], self.node_pos[y]
        if p < q:
            return K._sum_range(self.chain_fwd, lo + p + 1, lo + q + 1)
        return K._sum_range(self.chain_bwd, lo + q + 1, lo + p + 1)

    def chain_slice(self, x, y):
        if x == y:
            return np.array([x], np.int32)
        lo = self.chain_off[self.node_chain[x]]
        p, q = self.node_pos[x], self.node_pos[y]
        if p < q:
            return self.chain_nodes[lo + p:lo + q + 1].copy()
        return self.chain_nodes[lo + q:lo + p + 1][::-1].copy()

    def expand(self, path):
        """Small-graph ``path`` as ids below."""
        c = self.csr
        return K._expand_walk(path, self.kept, c.offsets, c.targets, c.cost,
                              c.data["chain"], c.data["rev"], self.chain_off,
                              self.chain_nodes)


class SimplifiedGraph:
    """The corridor-contracted view of one graph at one version, in one or
    more levels (each level contracts the small graph of the one below).

    ``levels[0]`` works on the graph's own node ids; ``top`` is the small
    graph searched; ``top_nodes`` gives its nodes' original ids.
    """

    def __init__(self, graph, levels=None):
        if levels is not None and (not isinstance(levels, (int, np.integer))
                                   or isinstance(levels, bool) or levels < 1):
            raise QueryError(f"levels must be a positive integer or None (automatic), "
                             f"got {levels!r}")
        t0 = time.perf_counter()
        self.requested_levels = levels
        self.graph = graph
        self.key = _version_key(graph)
        csr = graph.csr
        rev = csr.reverse()
        self.levels = [Level(csr.offsets, csr.targets, csr.cost,
                             (rev.offsets, rev.targets, rev.edge_ids), graph.walkable)]
        top_nodes = self.levels[0].kept
        while levels is None or len(self.levels) < levels:
            below = self.levels[-1]
            if levels is None and below.num_nodes < AUTO_MIN_NODES:
                break
            c = below.csr
            r = c.reverse()
            nxt = Level(c.offsets, c.targets, c.cost, (r.offsets, r.targets, r.edge_ids),
                        np.ones(below.num_nodes, np.bool_))
            if levels is None and nxt.num_nodes > AUTO_MAX_FRACTION * below.num_nodes:
                break   # another level would not shrink the search enough to pay
            self.levels.append(nxt)
            top_nodes = top_nodes[nxt.kept]
        self.top = self.levels[-1]
        self.top_nodes = top_nodes
        pos = graph.positions if graph.heuristic != "zero" else None
        self.positions = None if pos is None else np.ascontiguousarray(pos[top_nodes])
        self.build_seconds = time.perf_counter() - t0
        self._tls = threading.local()

    # -- facts ------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        """Nodes of the graph that is searched (the top level)."""
        return self.top.num_nodes

    @property
    def num_edges(self) -> int:
        return self.top.csr.num_edges

    @property
    def num_chains(self) -> int:
        return int(self.levels[0].chain_a.size)

    @property
    def current(self) -> bool:
        """Whether the graph is unchanged since this view was built."""
        return self.key == _version_key(self.graph)

    @property
    def nbytes(self) -> int:
        extra = 0 if self.positions is None else self.positions.nbytes
        return int(sum(lv.nbytes for lv in self.levels) + self.top_nodes.nbytes + extra)

    def stats(self) -> dict:
        """Sizes per level and the build time."""
        return {"nodes": self.graph.num_nodes, "edges": self.graph.csr.num_edges,
                "levels": [{"nodes": lv.num_nodes, "edges": lv.csr.num_edges,
                            "chains": int(lv.chain_a.size),
                            "dead_ends": int((lv.chain_b < 0).sum())}
                           for lv in self.levels],
                "kept_nodes": self.num_nodes, "edges_after": self.num_edges,
                "build_ms": self.build_seconds * 1e3}

    # -- queries ----------------------------------------------------------------
    def find_path(self, start, goal) -> PathResult:
        """Optimal path between original node ids ``start`` and ``goal``."""
        graph = self.graph
        s = check_node(graph, start, "start")
        t = check_node(graph, goal, "goal")
        if not graph.walkable[s]:
            return PathResult.failed(PathStatus.INVALID_START)
        if not graph.walkable[t]:
            return PathResult.failed(PathStatus.INVALID_GOAL)
        if s == t:
            return PathResult(PathStatus.FOUND, np.array([s], np.int32),
                              graph.points_of([s]), 0.0, 0, "simplified")
        # climb: the start and goal as entry points of every level, and the
        # cheapest route that stays inside one chain on the way
        starts, goals = [[(s, 0.0, -1, -1, -1)]], [[(t, 0.0, -1, -1, -1)]]
        best, direct = np.inf, None
        for j, lv in enumerate(self.levels):
            for a, (x, cx, *_) in enumerate(starts[j]):
                for b, (y, cy, *_) in enumerate(goals[j]):
                    d = cx + lv.inside(x, y) + cy
                    if d < best:
                        best, direct = d, (j, a, b)
            starts.append(lv.lift(starts[j], outward=True))
            goals.append(lv.lift(goals[j], outward=False))
        src = np.array([e[0] for e in starts[-1]] or [-1], np.int32)
        src_cost = np.array([e[1] for e in starts[-1]] or [np.inf])
        dst = np.array([e[0] for e in goals[-1]] or [-1], np.int32)
        dst_cost = np.array([e[1] for e in goals[-1]] or [np.inf])
        if self.positions is None:
            hkind, scale, pos, gx, gy, gz = 0, 0.0, _NO_POSITIONS, 0.0, 0.0, 0.0
        else:
            h = graph.heuristic
            scale = heuristic_scale(graph, h)
            hkind = _HKIND[h] if scale > 0 else 0
            pos = self.positions
            p = graph.positions[t]
            gx, gy, gz = p[0], p[1], (p[2] if p.shape[0] > 2 else 0.0)
        sc = self._scratch()
        gen = sc.next_gen()
        c = self.top.csr
        total, k, expanded = K._search(c.offsets, c.targets, c.cost, pos, hkind, scale,
                                       gx, gy, gz, src, src_cost, dst, dst_cost, best,
                                       sc.g, sc.parent, sc.mark, sc.stamp, sc.hnode,
                                       sc.hkey, sc.hpos, gen)
        if not total < np.inf:
            return PathResult(PathStatus.UNREACHABLE, expanded=expanded,
                              algorithm="simplified")
        if k >= 0:   # through the top graph
            path, a = K._trace(sc.parent, dst[k])
            level, b = len(self.levels), k
        else:        # inside a chain of level j + 1, in ids of level j
            j, a, b = direct
            path = self.levels[j].chain_slice(starts[j][a][0], goals[j][b][0])
            level = j
        # descend: expand the path one level down and add the walks that led
        # from the start and goal to its ends
        while level > 0:
            level -= 1
            lv = self.levels[level]
            _, _, pa, xa, side_a = starts[level + 1][a]
            _, _, pb, xb, side_b = goals[level + 1][b]
            path = np.concatenate([lv.walk(xa, side_a, True)[:-1], lv.expand(path),
                                   lv.walk(xb, side_b, False)[1:]])
            a, b = pa, pb
        return PathResult(PathStatus.FOUND, path, graph.points_of(path), float(total),
                          expanded, "simplified")

    def _scratch(self) -> SearchScratch:
        sc = getattr(self._tls, "scratch", None)
        if sc is None:
            sc = self._tls.scratch = SearchScratch(self.num_nodes)
        return sc

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<SimplifiedGraph of {self.graph.graph_id!r}: {self.num_nodes} of "
                f"{self.graph.num_nodes} nodes in {len(self.levels)} level(s), "
                f"{self.num_edges} edges, {state}>")


def _version_key(graph):
    csr = graph.csr
    return (graph.version, id(csr), csr.cost_version)


def simplified_view(graph):
    """The graph's simplified view if one was built and is current, else None
    (never builds; ``algorithm="auto"`` asks this)."""
    view = graph.extensions.get(_EXT_KEY)
    return view if view is not None and view.current else None


def simplify(graph, levels=None) -> SimplifiedGraph:
    """The simplified view of ``graph`` (a ``NavGraph``), built now if it is
    missing, stale or has other ``levels``, and kept with the graph for
    later queries.

    ``levels=None`` contracts again while a level still shrinks the graph
    to at most ``AUTO_MAX_FRACTION`` of the one below and has at least
    ``AUTO_MIN_NODES`` nodes (on spanning-tree mazes each level keeps about
    a quarter; see BENCHMARKS.md); an integer builds exactly that many.
    """
    with graph.lock:
        view = graph.extensions.get(_EXT_KEY)
        if view is None or not view.current or view.requested_levels != levels:
            view = SimplifiedGraph(graph, levels)
            graph.extensions[_EXT_KEY] = view
        return view


def simplified_path(graph, start, goal) -> PathResult:
    """``find_path`` on the simplified view: the current one whatever its
    levels; rebuilt with the same ``levels`` setting when stale; built
    with automatic levels when there is none."""
    view = simplified_view(graph)
    if view is None:
        old = graph.extensions.get(_EXT_KEY)
        view = simplify(graph, None if old is None else old.requested_levels)
    return view.find_path(start, goal)
