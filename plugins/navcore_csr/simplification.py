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
>>> r = world.find_path("line", 1, 3, algorithm="simplified")
>>> r.nodes.tolist(), r.cost
([1, 2, 3], 5.0)
"""
from __future__ import annotations

import threading
import time

import numpy as np

from navcore.types import PathResult, PathStatus

from . import _simplify as K
from ._build import _row_ids
from .search import _HKIND, _NO_POSITIONS, SearchScratch, check_node, heuristic_scale
from .storage import build_csr

_EXT_KEY = "navcore_csr.simplified"
_NO_NODE = np.full(2, -1, dtype=np.int32)
_NO_COST = np.full(2, np.inf)


class SimplifiedGraph:
    """The corridor-contracted view of one graph at one version.

    ``kept`` (int32) lists the original ids of the small graph's nodes and
    ``csr`` is its CSR (edge data ``chain``: the chain an edge stands for,
    -1 for an original edge; ``rev``: walked from the chain's end ``b`` to
    ``a``). Chain ``c`` holds ``chain_nodes[chain_off[c]:chain_off[c+1]]``
    from end ``chain_a[c]`` to end ``chain_b[c]`` (-1 for a dead end).
    """

    def __init__(self, graph):
        t0 = time.perf_counter()
        self.graph = graph
        self.key = _version_key(graph)
        csr = graph.csr
        rev = csr.reverse()
        n = graph.num_nodes
        kind = np.empty(n, dtype=np.int8)
        nb1 = np.empty(n, dtype=np.int32)
        nb2 = np.empty(n, dtype=np.int32)
        K._classify(csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets,
                    rev.edge_ids, graph.walkable, kind, nb1, nb2)
        self.node_chain = np.full(n, -1, dtype=np.int32)
        self.node_pos = np.full(n, -1, dtype=np.int32)
        chain_off = np.empty(n + 1, dtype=np.int64)
        nodes = np.empty(n, dtype=np.int32)
        fwd = np.empty(n)
        bwd = np.empty(n)
        ca = np.empty(n, dtype=np.int32)
        cb = np.empty(n, dtype=np.int32)
        fend = np.empty(n)
        bend = np.empty(n)
        nc, fill = K._chains(csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets,
                             rev.edge_ids, graph.walkable, kind, nb1, nb2, self.node_chain,
                             self.node_pos, chain_off, nodes, fwd, bwd, ca, cb, fend, bend)
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
        self.csr = self._small_csr(csr, kept_mask)
        pos = graph.positions if graph.heuristic != "zero" else None
        self.positions = None if pos is None else np.ascontiguousarray(pos[self.kept])
        self.build_seconds = time.perf_counter() - t0
        self._tls = threading.local()

    def _small_csr(self, csr, kept_mask):
        rows = _row_ids(csr.offsets)
        heads = csr.targets
        direct = (kept_mask[rows] & kept_mask[heads] & (rows != heads)
                  & np.isfinite(csr.cost))
        off = self.chain_off
        lengths = np.diff(off)
        firsts = off[:-1]
        # sums per chain: np.add.reduceat needs non-empty segments, and every
        # chain has at least one node
        fsum = np.add.reduceat(self.chain_fwd, firsts) if lengths.size else np.empty(0)
        bsum = np.add.reduceat(self.chain_bwd, firsts) if lengths.size else np.empty(0)
        ends = self.chain_b >= 0
        loop = self.chain_a == self.chain_b
        # forward: fwd edges a->first..->last, then last->b
        f_total = fsum + self.chain_fend
        b_total = bsum + self.chain_bend
        fmask = ends & ~loop & np.isfinite(f_total)
        bmask = ends & ~loop & np.isfinite(b_total)
        ki = self.kept_index
        cid = np.arange(self.chain_a.size, dtype=np.int32)
        src = np.concatenate([ki[rows[direct]], ki[self.chain_a[fmask]], ki[self.chain_b[bmask]]])
        dst = np.concatenate([ki[heads[direct]], ki[self.chain_b[fmask]], ki[self.chain_a[bmask]]])
        cost = np.concatenate([csr.cost[direct], f_total[fmask], b_total[bmask]])
        chain = np.concatenate([np.full(int(direct.sum()), -1, np.int32), cid[fmask], cid[bmask]])
        rev = np.concatenate([np.zeros(int(direct.sum()) + int(fmask.sum()), np.bool_),
                              np.ones(int(bmask.sum()), np.bool_)])
        return build_csr(src, dst, {"cost": cost, "chain": chain, "rev": rev},
                         num_nodes=self.kept.size, sort=True, dedup=False)

    # -- facts ------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return int(self.kept.size)

    @property
    def num_edges(self) -> int:
        return self.csr.num_edges

    @property
    def num_chains(self) -> int:
        return int(self.chain_a.size)

    @property
    def current(self) -> bool:
        """Whether the graph is unchanged since this view was built."""
        return self.key == _version_key(self.graph)

    @property
    def nbytes(self) -> int:
        arrays = (self.node_chain, self.node_pos, self.chain_off, self.chain_nodes,
                  self.chain_fwd, self.chain_bwd, self.chain_a, self.chain_b,
                  self.chain_fend, self.chain_bend, self.kept, self.kept_index)
        extra = 0 if self.positions is None else self.positions.nbytes
        return int(sum(a.nbytes for a in arrays) + self.csr.nbytes + extra)

    def stats(self) -> dict:
        """Sizes before and after, and the build time."""
        orig = self.graph.csr
        return {"nodes": self.graph.num_nodes, "edges": orig.num_edges,
                "kept_nodes": self.num_nodes, "edges_after": self.num_edges,
                "chains": self.num_chains,
                "dead_ends": int((self.chain_b < 0).sum()),
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
        src, src_cost = self._exits(s, outward=True)
        dst, dst_cost = self._exits(t, outward=False)
        direct = self._inside_chain(s, t)
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
        c = self.csr
        best, k, expanded = K._search(c.offsets, c.targets, c.cost, pos, hkind, scale,
                                      gx, gy, gz, src, src_cost, dst, dst_cost, direct,
                                      sc.g, sc.parent, sc.mark, sc.stamp, sc.hnode, sc.hkey,
                                      sc.hpos, gen)
        if not best < np.inf:
            return PathResult(PathStatus.UNREACHABLE, expanded=expanded,
                              algorithm="simplified")
        if k < 0:
            nodes = self._chain_slice(s, t)
        else:
            middle, root = K._expand(sc.parent, sc.mark, dst[k], self.kept,
                                     c.data["chain"], c.data["rev"], self.chain_off,
                                     self.chain_nodes)
            nodes = np.concatenate([self._partial(s, root, leaving=True), middle,
                                    self._partial(t, k, leaving=False)])
        return PathResult(PathStatus.FOUND, nodes, graph.points_of(nodes), float(best),
                          expanded, "simplified")

    def _exits(self, v, outward):
        """Small-graph nodes next to ``v`` and the cost between: to them when
        ``outward`` (v is the start), from them otherwise. Index 0 is the
        chain's end a, 1 its end b."""
        i = self.kept_index[v]
        if i >= 0:
            return np.array([i, -1], np.int32), np.array([0.0, np.inf])
        c = self.node_chain[v]
        p = self.node_pos[v]
        lo, hi = self.chain_off[c], self.chain_off[c + 1]
        a, b = self.chain_a[c], self.chain_b[c]
        if outward:   # v -> a walks the back edges of positions p..0
            to_a = K._sum_range(self.chain_bwd, lo, lo + p + 1)
            to_b = K._sum_range(self.chain_fwd, lo + p + 1, hi) + self.chain_fend[c]
        else:
            to_a = K._sum_range(self.chain_fwd, lo, lo + p + 1)
            to_b = K._sum_range(self.chain_bwd, lo + p + 1, hi) + self.chain_bend[c]
        nodes = np.array([self.kept_index[a], self.kept_index[b] if b >= 0 else -1], np.int32)
        costs = np.array([to_a, to_b if b >= 0 else np.inf])
        return nodes, costs

    def _inside_chain(self, s, t) -> float:
        """Cost of the route from ``s`` to ``t`` that stays in their chain."""
        c = self.node_chain[s]
        if c < 0 or c != self.node_chain[t]:
            return np.inf
        lo = self.chain_off[c]
        p, q = self.node_pos[s], self.node_pos[t]
        if p < q:
            return K._sum_range(self.chain_fwd, lo + p + 1, lo + q + 1)
        return K._sum_range(self.chain_bwd, lo + q + 1, lo + p + 1)

    def _chain_slice(self, s, t):
        lo = self.chain_off[self.node_chain[s]]
        p, q = self.node_pos[s], self.node_pos[t]
        if p < q:
            return self.chain_nodes[lo + p:lo + q + 1].copy()
        return self.chain_nodes[lo + q:lo + p + 1][::-1].copy()

    def _partial(self, v, side, leaving):
        """The chain nodes between ``v`` and its chain's end ``side`` (0: a,
        1: b), ``v`` included, the end excluded; in walking order."""
        if self.kept_index[v] >= 0:
            return np.empty(0, np.int32)
        c = self.node_chain[v]
        lo, hi = self.chain_off[c], self.chain_off[c + 1]
        p = self.node_pos[v]
        seg = self.chain_nodes[lo:lo + p + 1] if side == 0 else self.chain_nodes[lo + p:hi]
        # walking order: leaving towards a is p..0, arriving from a is 0..p
        if (side == 0) == leaving:
            seg = seg[::-1]
        return seg

    def _scratch(self) -> SearchScratch:
        sc = getattr(self._tls, "scratch", None)
        if sc is None:
            sc = self._tls.scratch = SearchScratch(self.num_nodes)
        return sc

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<SimplifiedGraph of {self.graph.graph_id!r}: {self.num_nodes} of "
                f"{self.graph.num_nodes} nodes, {self.num_edges} edges, {state}>")


def _version_key(graph):
    csr = graph.csr
    return (graph.version, id(csr), csr.cost_version)


def simplified_view(graph):
    """The graph's simplified view if one was built and is current, else None
    (never builds; ``algorithm="auto"`` asks this)."""
    view = graph.extensions.get(_EXT_KEY)
    return view if view is not None and view.current else None


def simplify(graph) -> SimplifiedGraph:
    """The simplified view of ``graph`` (a ``NavGraph``), built now if it is
    missing or stale, and kept with the graph for later queries."""
    with graph.lock:
        view = graph.extensions.get(_EXT_KEY)
        if view is None or not view.current:
            view = SimplifiedGraph(graph)
            graph.extensions[_EXT_KEY] = view
        return view


def simplified_path(graph, start, goal) -> PathResult:
    """``find_path`` on the simplified view (built or rebuilt if needed)."""
    return simplify(graph).find_path(start, goal)
