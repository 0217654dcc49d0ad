"""Graph simplification: contract corridors for exact, faster search.

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

Updates: after each applied batch the view is patched in place
(:meth:`SimplifiedGraph.patch`, level by level, touching only the chains
and small edges of the dirty nodes) when no edge became cheaper than it
was at build time: walls and closed doors that come and go, costs that
rise and fall back. That keeps it exact: the chains are still paths of the
graph with their costs, and the heuristic, scaled to the build's cheapest
edge, stays admissible. Anything new (a wall the build never saw opening,
a cost below its build value) marks the view stale
(:attr:`SimplifiedGraph.current` is False): ``algorithm="auto"`` then
leaves it alone, ``algorithm="simplified"`` is a ``QueryError``, and
:func:`simplify` rebuilds it (queries never do). Build on the most open
version of a map.

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

import time

import numpy as np

from navcore import validate
from navcore._kernels import wraps
from navcore.errors import QueryError
from navcore.views import DerivedView
from navcore.types import PathResult, PathStatus

from . import _simplify as K
from ._build import row_ids
from .contraction import built_view
from .search import HKIND, NO_POSITIONS, ends_or_answer, heuristic_scale
from .storage import build_csr

#: where a graph keeps its simplified view (``graph.view(VIEW_KEY)``)
VIEW_KEY = "navcore_csr.simplified"
#: the most levels a caller may ask for (a level at best halves the nodes:
#: 64 is past any graph of int32 node ids)
MAX_LEVELS = 64
#: automatic levels stop below this many nodes (a search there is cheap)...
AUTO_MIN_NODES = 256
#: ...or when a level would keep more than this fraction of the one below
AUTO_MAX_FRACTION = 0.6
#: ``algorithm="auto"`` takes a current view only when its top graph has at
#: most this fraction of the graph's walkable nodes: on open maps a view
#: keeps nearly all of them (Berlin_0_256: 99.6%) and the backend's own
#: search (grid JPS) is many times faster than A* over the view
AUTO_USE_FRACTION = 0.25


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
        graph = K.Graph(offsets, targets, cost, roff, rsrc, reid, walkable)
        K.classify(graph, kind, nb1, nb2)
        self.node_chain = np.full(n, -1, dtype=np.int32)
        self.node_pos = np.full(n, -1, dtype=np.int32)
        chain_off = np.empty(n + 1, dtype=np.int64)
        nodes = np.empty(n, dtype=np.int32)
        fwd, bwd, fend, bend = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
        ca = np.empty(n, dtype=np.int32)
        cb = np.empty(n, dtype=np.int32)
        nc, fill = K.chains(graph, kind, nb1, nb2,
                            K.Chains(self.node_chain, self.node_pos, chain_off, nodes, fwd,
                                     bwd, ca, cb, fend, bend))
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
        rows = row_ids(offsets)
        direct = kept_mask[rows] & kept_mask[targets] & (rows != targets) & np.isfinite(cost)
        # one direct edge per pair of kept nodes, the cheapest (a patch
        # after an update writes the pair's least cost into it)
        d_src, d_dst, d_cost = rows[direct], targets[direct], cost[direct]
        order = np.lexsort((d_cost, d_dst, d_src))
        d_src, d_dst, d_cost = d_src[order], d_dst[order], d_cost[order]
        first = np.ones(d_src.size, dtype=np.bool_)
        first[1:] = (d_src[1:] != d_src[:-1]) | (d_dst[1:] != d_dst[:-1])
        d_src, d_dst, d_cost = d_src[first], d_dst[first], d_cost[first]
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
        nd, nf, nb = int(d_src.size), int(fmask.sum()), int(bmask.sum())
        src = np.concatenate([ki[d_src], ki[self.chain_a[fmask]], ki[self.chain_b[bmask]]])
        dst = np.concatenate([ki[d_dst], ki[self.chain_b[fmask]], ki[self.chain_a[bmask]]])
        cost = np.concatenate([d_cost, f_total[fmask], b_total[bmask]])
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


class Packed:
    """Every level's arrays laid end to end so that one kernel call can
    climb and descend all levels (see ``_simplify.query``).

    ``base[j]`` is where level j starts in the per-node, per-chain and
    per-kept-node arrays; chain ids, ``chain_off`` and the small graphs'
    ``offsets`` are made global, node values stay in their level's ids.
    Fields of one dtype and length are rows of one array. After packing,
    each level's arrays are views into these, so memory is not doubled.
    """

    def __init__(self, levels):
        L = len(levels)
        self.base = np.zeros((L + 1, 3), dtype=np.int64)
        for j, lv in enumerate(levels):
            self.base[j + 1] = self.base[j] + (lv.below_nodes, lv.chain_a.size, lv.num_nodes)
        self.node_i32 = self._rows(levels, ("node_chain", "node_pos", "kept_index"))
        self.chain_ends = self._rows(levels, ("chain_a", "chain_b"))
        self.chain_end_cost = self._rows(levels, ("chain_fend", "chain_bend"))
        self.chain_steps = self._rows(levels, ("chain_fwd", "chain_bwd"))
        self.chain_nodes = self._rows(levels, ("chain_nodes",))[0]
        self.kept = self._rows(levels, ("kept",))[0]
        # global positions: level j's chain nodes and small-graph edges
        # follow those of the levels before it
        node_base = np.cumsum([0] + [lv.chain_nodes.size for lv in levels])
        edge_base = np.cumsum([0] + [lv.csr.num_edges for lv in levels])
        self.chain_off = np.concatenate(
            [lv.chain_off[:-1] + node_base[j] for j, lv in enumerate(levels)]
            + [[node_base[-1]]]).astype(np.int64)
        self.offsets = np.concatenate(
            [lv.csr.offsets[:-1] + edge_base[j] for j, lv in enumerate(levels)]
            + [[edge_base[-1]]]).astype(np.int64)
        self.targets = np.concatenate([lv.csr.targets for lv in levels]).astype(np.int32)
        self.cost = np.concatenate([lv.csr.cost for lv in levels]).astype(np.float64)
        self.edge_chain = np.concatenate([lv.csr.data["chain"] for lv in levels]).astype(np.int32)
        self.edge_rev = np.concatenate([lv.csr.data["rev"] for lv in levels]).astype(np.bool_)
        for j, lv in enumerate(levels):   # the levels' small graphs share these
            e0, e1 = edge_base[j], edge_base[j + 1]
            lv.csr.targets = self.targets[e0:e1]
            lv.csr.data = {"cost": self.cost[e0:e1], "chain": self.edge_chain[e0:e1],
                           "rev": self.edge_rev[e0:e1]}
        # costs at build, and which small edge stands for each chain, for
        # patching in place (see _simplify.patch_level)
        self.steps_build = self.chain_steps.copy()
        self.end_build = self.chain_end_cost.copy()
        self.cost_build = self.cost.copy()
        nchains = int(self.base[L, 1])
        self.chain_fedge = np.full(nchains, -1, dtype=np.int64)
        self.chain_bedge = np.full(nchains, -1, dtype=np.int64)
        for j in range(L):
            e = np.arange(edge_base[j], edge_base[j + 1])
            ch = self.edge_chain[e]
            on = ch >= 0
            g = self.base[j, 1] + ch[on]
            rev = self.edge_rev[e][on]
            self.chain_fedge[g[~rev]] = e[on][~rev]
            self.chain_bedge[g[rev]] = e[on][rev]
        self.chain_stamp = np.zeros(nchains, dtype=np.int32)
        self.stamp_gen = 0
        #: what ``_simplify.patch_level`` reads and writes
        self.patch_arrays = K.PatchArrays(
            self.base, self.node_i32, self.chain_off, self.chain_nodes, self.chain_steps,
            self.steps_build, self.chain_ends, self.chain_end_cost, self.end_build,
            self.offsets, self.targets, self.cost, self.edge_chain, self.cost_build,
            self.chain_fedge, self.chain_bedge, self.chain_stamp)
        # entry lists: level j holds at most min(2^j, nodes of graph j) of
        # them (each entry lifts to at most two, duplicates merge)
        sizes = [levels[0].below_nodes] + [lv.num_nodes for lv in levels]
        self.entry_capacity = int(sum(min(2 ** j, max(n, 1)) for j, n in enumerate(sizes)))

    @staticmethod
    def _rows(levels, names):
        """One row per field, the levels end to end; the levels' own
        attributes become views of their stretch."""
        rows = np.stack([np.concatenate([getattr(lv, n) for lv in levels]) for n in names])
        at = 0
        for lv in levels:
            size = getattr(lv, names[0]).size
            for r, n in enumerate(names):
                setattr(lv, n, rows[r, at:at + size])
            at += size
        return rows

    def kernel_args(self):
        """The graph half of ``_simplify.query``'s arguments, in order."""
        return (self.base, self.node_i32, self.chain_off, self.chain_nodes,
                self.chain_steps, self.chain_ends, self.chain_end_cost, self.kept,
                self.offsets, self.targets, self.cost, self.edge_chain, self.edge_rev)

    @property
    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray)))


class QueryScratch:
    """One thread's memory for simplified queries: the top graph's search
    arrays (generation-stamped), the entry lists and two path
    buffers, laid out as ``_simplify.query`` takes them."""

    __slots__ = ("ent_i32", "ent_cost", "ent_off", "search_f64", "search_i32", "bufs",
                 "gen")

    def __init__(self, top_nodes, entry_capacity, levels, graph_nodes):
        n = max(int(top_nodes), 1)
        self.ent_i32 = np.empty((4, 2 * entry_capacity), dtype=np.int32)
        self.ent_cost = np.empty(2 * entry_capacity, dtype=np.float64)
        self.ent_off = np.empty((2, levels + 2), dtype=np.int64)
        self.search_f64 = np.empty((2, n), dtype=np.float64)
        self.search_i32 = np.zeros((5, n), dtype=np.int32)   # row 2: stamps
        self.bufs = np.empty((2, max(int(graph_nodes), 1)), dtype=np.int32)
        self.gen = 0

    def next_gen(self) -> int:
        if wraps(self.gen):                 # wrap-around: wipe the stamps once
            self.search_i32[2] = 0
            self.gen = 0
        self.gen += 1
        return self.gen

    def kernel_args(self, gen):
        """The scratch half of ``_simplify.query``'s arguments, in order."""
        return (self.ent_i32, self.ent_cost, self.ent_off, self.search_f64,
                self.search_i32, gen, self.bufs)


class SimplifiedGraph(DerivedView):
    """The corridor-contracted view of one graph at one version, in one or
    more levels (each level contracts the small graph of the one below).

    ``levels[0]`` works on the graph's own node ids; ``top`` is the small
    graph searched; ``top_nodes`` gives its nodes' original ids.
    """

    def __init__(self, graph, levels=None):
        # at most MAX_LEVELS: each level is built whether or not it shrinks
        # the one below, so levels=10**6 would build a million of them
        graph = validate.graph(graph)
        if levels is not None and (not validate.is_int(levels)
                                   or not 1 <= levels <= MAX_LEVELS):
            raise QueryError(f"levels must be an integer in 1..{MAX_LEVELS} or None "
                             f"(automatic), got {validate.describe(levels)}")
        t0 = time.perf_counter()
        super().__init__(graph)      # the version first: later updates make it stale
        self.requested_levels = levels
        # one version's costs, even while ticks update them (built as a job)
        csr, cost, walkable = graph.read_consistent(
            lambda: (graph.csr, np.array(graph.csr.cost), np.array(graph.walkable)))
        rev = csr.reverse()
        self.levels = [Level(csr.offsets, csr.targets, cost,
                             (rev.offsets, rev.targets, rev.edge_ids), walkable)]
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
        self._walkable_count = int(np.count_nonzero(graph.walkable))
        self.packed = Packed(self.levels)
        pos = graph.positions if graph.heuristic != "zero" else None
        self.positions = None if pos is None else np.ascontiguousarray(pos[top_nodes])
        # the heuristic is fixed while the view is current, so work it out once
        if self.positions is None:
            hkind, scale, pos, gpos = 0, 0.0, NO_POSITIONS, NO_POSITIONS
        else:
            scale = heuristic_scale(graph, graph.heuristic)
            hkind = HKIND[graph.heuristic] if scale > 0 else 0
            pos, gpos = self.positions, graph.positions
        self._graph_args = (*self.packed.kernel_args(), pos, gpos, hkind, scale)
        self.build_seconds = time.perf_counter() - t0
        self.patches = 0               # updates written in place since the build

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
    def pays(self) -> bool:
        """Whether ``algorithm="auto"`` should search this view: its top
        graph keeps at most ``AUTO_USE_FRACTION`` of the walkable nodes."""
        return self.num_nodes <= AUTO_USE_FRACTION * self._walkable_count

    @property
    def nbytes(self) -> int:
        extra = 0 if self.positions is None else self.positions.nbytes
        own = sum(lv.csr.offsets.nbytes for lv in self.levels)   # the rest is packed
        return int(self.packed.nbytes + own + self.top_nodes.nbytes + extra)

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
        s, t, answer = ends_or_answer(graph, start, goal, "simplified")
        if answer is not None:
            return answer
        sc = self._scratch()
        total, expanded, path = K.query(s, t, *self._graph_args,
                                         *sc.kernel_args(sc.next_gen()))
        if path.size == 0:
            return PathResult(PathStatus.UNREACHABLE, expanded=expanded,
                              algorithm="simplified")
        return PathResult(PathStatus.FOUND, path, graph.points_of(path), float(total),
                          expanded, "simplified")

    def warm_up(self) -> None:
        """Load the query kernel (a query along one edge: a short search
        on any graph) and the patch kernels (a patch of nothing); nothing
        changes. :func:`simplify` calls it before it publishes the view, so
        neither a tick's first query on it nor its first update compiles."""
        graph = self.graph
        csr = graph.csr
        walk = graph.walkable
        for u in graph.first_walkable(64):
            ends = [v for v in csr.targets[csr.offsets[u]:csr.offsets[u + 1]]
                    if v != u and walk[v]]
            if ends:
                self.find_path(int(u), int(ends[0]))
                break
        P = self.packed
        empty = np.empty(0, dtype=np.int64)
        rev = csr.reverse()
        K.incident_pairs(empty, csr.offsets, csr.targets, rev.offsets, rev.targets)
        for j in range(len(self.levels)):       # as _patch calls it, level by level
            K.patch_level(j, empty, empty, self._below(j, csr), P.patch_arrays,
                          P.stamp_gen, np.empty(1, np.int64), np.empty(1, np.int64))

    def _patch(self, dirty) -> bool:
        """Bring the view up to date with the batch that made ``dirty`` (the
        nodes ``navcore_apply_updates`` reported) without rebuilding it:
        exact when no edge became cheaper than it was at build time (walls
        and closed doors come and go, costs rise and fall back). Returns
        False, leaving the view stale, when it cannot: it was not current
        before this batch, or something new opened up."""
        graph = self.graph
        csr = graph.csr
        if self.version != graph.version - 1:      # it missed an earlier batch
            return False
        P = self.packed
        rev = csr.reverse()
        dirty = np.ascontiguousarray(dirty, dtype=np.int64)
        us, vs = K.incident_pairs(dirty, csr.offsets, csr.targets, rev.offsets,
                                   rev.targets)
        for j in range(len(self.levels)):
            below = self._below(j, csr)
            P.stamp_gen += 1
            if P.stamp_gen >= np.iinfo(np.int32).max:
                P.chain_stamp[:] = 0
                P.stamp_gen = 1
            cap = 5 * us.size + 1
            out_u = np.empty(cap, dtype=np.int64)
            out_v = np.empty(cap, dtype=np.int64)
            n = K.patch_level(j, us, vs, below, P.patch_arrays, P.stamp_gen, out_u, out_v)
            if n < 0:
                return False
            us, vs = out_u[:n], out_v[:n]
            if n == 0:
                break
        self.mark_current()
        self.patches += 1
        return True

    def _below(self, j, csr):
        """The graph level ``j`` contracts, as ``_simplify.patch_level``
        reads it (level 0: ``csr``, the graph's own)."""
        if j == 0:
            return K.Below(csr.offsets, csr.targets, csr.cost, self.graph.walkable, True)
        P = self.packed
        k0 = P.base[j - 1, 2]
        return K.Below(P.offsets[k0:k0 + self.levels[j].below_nodes + 1], P.targets,
                       P.cost, np.ones(1, dtype=np.bool_), False)

    def _scratch(self) -> QueryScratch:
        """This thread's query scratch (one set per thread)."""
        return self.thread_local(lambda: QueryScratch(
            self.num_nodes, self.packed.entry_capacity, len(self.levels),
            self.graph.num_nodes))

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<SimplifiedGraph of {self.graph.graph_id!r}: {self.num_nodes} of "
                f"{self.graph.num_nodes} nodes in {len(self.levels)} level(s), "
                f"{self.num_edges} edges, {state}>")


def simplified_view(graph):
    """The graph's simplified view if one was built and is current, else None
    (never builds)."""
    graph = validate.graph(graph)
    return graph.view(VIEW_KEY)


def simplify(graph, levels=None) -> SimplifiedGraph:
    """The simplified view of ``graph`` (a ``NavGraph``), built now if it is
    missing, stale or has other ``levels``, and kept with the graph for
    later queries.

    ``levels=None`` contracts again while a level still shrinks the graph
    to at most ``AUTO_MAX_FRACTION`` of the one below and has at least
    ``AUTO_MIN_NODES`` nodes (on spanning-tree mazes each level keeps about
    a quarter; see BENCHMARKS.md); an integer builds exactly that many.
    """
    graph = validate.graph(graph)
    return built_view(graph, VIEW_KEY, lambda v: v.requested_levels == levels,
                      lambda: SimplifiedGraph(graph, levels))


def simplified_path(graph, start, goal) -> PathResult:
    """``find_path`` on the graph's current simplified view; ``QueryError``
    when it has none or it is stale (queries never build one: ``simplify``
    does). Bad or unwalkable ends are answered first."""
    graph = validate.graph(graph)
    view = graph.view(VIEW_KEY)
    if view is None:
        s, t, answer = ends_or_answer(graph, start, goal, "simplified")
        if answer is not None:
            return answer
        why = "is stale (an update it could not follow: something opened or got " \
              "cheaper)" if graph.stored_view(VIEW_KEY) is not None else "was never built"
        raise QueryError(f"algorithm='simplified' needs a current simplified view, and "
                         f"the one of graph {graph.graph_id!r} {why}: build it with "
                         f"navcore_csr.simplify(graph)")
    return view.find_path(start, goal)


def on_update(graph, dirty) -> None:
    """After a batch: patch the graph's simplified view in place when that
    is exact; otherwise it stays stale until ``simplify`` rebuilds it."""
    view = graph.stored_view(VIEW_KEY)
    if view is not None:
        # no graph.lock: a contraction building on a worker thread holds it
        # for seconds, and the tick would wait. Patches run on the ticking
        # thread only, and a build reads its inputs through read_consistent
        view._patch(dirty)


def warm_up(graph) -> None:
    """Load the query and patch kernels of the graph's view, if it has a
    current one (``World.warm_up``)."""
    view = graph.view(VIEW_KEY)
    if view is not None:
        view.warm_up()
