"""``Hierarchy``: connected components of one graph that survive updates.

The A* Pathfinding Project's hierarchical graph (seed 000): real nodes are
grouped by BFS into hierarchical nodes of at most 256; the hierarchical
nodes and their connections form a small graph whose flood fill gives every
real node an area id. An update removes only the hierarchical nodes that
hold a dirty node (and their small neighbours), regroups those nodes and
floods the small graph again.

>>> import numpy as np, navcore
>>> w = navcore.World()
>>> _ = w.add_graph("g", type="grid", rows=["..#..", "..#..", "....."])
>>> w.reachable("g", (0, 0), (4, 0)), w.area("g", (0, 0)) == w.area("g", (4, 0))
(True, True)
>>> w.update("g", cells=[(2, 2)], walkable=False); _ = w.tick()
>>> w.reachable("g", (0, 0), (4, 0)), w.areas("g").reshape(3, 5)[0].tolist()
(False, [0, 0, -1, 1, 1])

Areas are connected components over walkable nodes and edges of finite
cost, an edge joining its ends both ways. On a directed graph they are the
weakly connected components: different areas still prove "unreachable" in
O(1), and within one area ``reachable`` falls back to a search.

Area ids are small integers, stable while an area exists: a component
keeps the smallest id its nodes had before an update. Ids of areas that
split, merged, appeared or vanished are reported to
``navcore_components_changed``.
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import NodeError, QueryError
from navcore.views import DerivedView

from . import _kernels as K


class Hierarchy(DerivedView):
    """The hierarchical graph of one ``NavGraph`` (see the module docs), a
    derived view (``navcore.views``) that follows every update.

    Build and update are separate from queries (Detour style): queries only
    read ``hnode_of`` and ``harea``; ``update`` edits them in place and must
    not run while a query on the same graph runs (``World.tick`` applies
    updates between queries).
    """

    def __init__(self, graph):
        super().__init__(graph)
        n = graph.num_nodes
        self.num_nodes = n
        self.directed = bool(graph.directed)
        self.hnode_of = np.full(n, -1, dtype=np.int32)
        self.prev_area = np.full(n, -1, dtype=np.int32)
        self.seeds = np.empty(n, dtype=np.int32)
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self._alloc_nodes(max(16, n // 128 + 16))
        self._alloc_connections(max(64, 8 * (n // 128 + 16)))
        self.builds = 0            # full recalculations so far
        self.updates = 0           # incremental updates so far
        self.local_updates = 0     # of which settled without a global flood
        self.recalculate()

    # -- storage --------------------------------------------------------------
    def _alloc_nodes(self, hcap):
        """(Re)allocate the per-hierarchical-node arrays with room for
        ``hcap`` ids, keeping what is there."""
        def grow(name, dtype, size, fill=0):
            arr = np.full(size, fill, dtype=dtype)
            prev = getattr(self, name, None)
            if prev is not None:
                arr[:prev.size] = prev
            setattr(self, name, arr)
        for name, dtype in (("hsize", np.int32), ("hgen", np.int32), ("harea", np.int32),
                            ("hprev", np.int32), ("cstart", np.int64), ("ccount", np.int32),
                            ("hmark", np.int64), ("hfree", np.int32), ("removed", np.int32),
                            ("uf", np.int32), ("rid", np.int32), ("hmixed", np.bool_),
                            ("bnd", np.int32), ("built", np.int32)):
            grow(name, dtype, hcap)
        grow("children", np.int32, hcap * K.MAX_CHILDREN)
        acap = 2 * hcap + 2      # old and new area ids can coexist in one update
        for name in ("acount", "anew", "afree", "changed"):
            grow(name, np.int32, acap)
        grow("aclaim", np.int64, acap)
        grow("anote", np.int64, acap)
        self.hcap = hcap

    def _alloc_connections(self, ccap):
        used = int(self.counters[K.C_CUSED])
        cnode = np.empty(ccap, dtype=np.int32)
        cgen = np.empty(ccap, dtype=np.int32)
        if hasattr(self, "cnode"):
            cnode[:used] = self.cnode[:used]
            cgen[:used] = self.cgen[:used]
        self.cnode, self.cgen = cnode, cgen
        # second buffer for compaction without allocating
        self._cnode2 = np.empty(ccap, dtype=np.int32)
        self._cgen2 = np.empty(ccap, dtype=np.int32)

    def _make_room(self, need):
        """More hierarchical ids (``need == 0``) or ``need`` more connection
        entries: compact the connection lists when half of them are
        garbage, else double (amortised; no per-update allocation)."""
        c = self.counters
        if need == 0:
            self._alloc_nodes(2 * self.hcap)
            return
        live = int(c[K.C_CUSED] - c[K.C_CGARBAGE])
        if c[K.C_CGARBAGE] >= live and live + need <= self.cnode.size:
            K.compact(self.hsize, self.cstart, self.ccount, self.cnode, self.cgen,
                       self._cnode2, self._cgen2, c)
            self.cnode, self._cnode2 = self._cnode2, self.cnode
            self.cgen, self._cgen2 = self._cgen2, self.cgen
        if c[K.C_CUSED] + need > self.cnode.size:
            self._alloc_connections(max(2 * self.cnode.size, int(c[K.C_CUSED] + need)))

    def _csr_arrays(self):
        csr = self.graph.csr
        if self.directed:
            rev = csr.reverse()
            return csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets, rev.edge_ids
        empty64 = np.zeros(1, dtype=np.int64)
        empty32 = np.zeros(0, dtype=np.int32)
        return csr.offsets, csr.targets, csr.cost, empty64, empty32, empty64

    # -- build and update -----------------------------------------------------
    def recalculate(self) -> np.ndarray:
        """Rebuild everything from scratch; returns the changed area ids
        (all areas on the first build)."""
        self.hnode_of[:] = -1
        self.prev_area[:] = -1
        self.hsize[:] = 0
        self.hgen[:] = 0
        self.hmixed[:] = False
        self.ccount[:] = 0
        self.acount[:] = 0
        self.counters[:] = 0
        walk = np.flatnonzero(self.graph.walkable).astype(np.int32)
        self.seeds[:walk.size] = walk
        offsets, targets, cost, roff, rsrc, reid = self._csr_arrays()
        changed = self._regroup(walk.size, 0, 0, offsets, targets, cost, roff, rsrc, reid)
        self.builds += 1
        return changed

    def grow(self, num_nodes: int) -> None:
        """Make room for nodes ``self.num_nodes .. num_nodes - 1``, which an
        update batch added (``num_nodes`` never shrinks). They start
        ungrouped, like blocked nodes; the batch's ``update`` (whose dirty
        nodes include every new one) groups those that are walkable."""
        n = int(num_nodes)
        if n <= self.num_nodes:
            return
        old = self.num_nodes
        for name, fill in (("hnode_of", -1), ("prev_area", -1)):
            arr = np.full(n, fill, dtype=np.int32)
            arr[:old] = getattr(self, name)
            setattr(self, name, arr)
        self.seeds = np.empty(n, dtype=np.int32)
        self.num_nodes = n

    def update(self, dirty) -> np.ndarray:
        """Regroup the hierarchical nodes touched by ``dirty`` nodes and
        flood again; returns the ids of areas that split, merged, appeared
        or vanished (empty when connectivity did not change)."""
        dirty = np.unique(np.asarray(dirty, dtype=np.int64)).astype(np.int32)
        if dirty.size == 0:
            return dirty
        if dirty[0] < 0 or dirty[-1] >= self.num_nodes:
            raise NodeError(f"dirty node ids must lie in [0, {self.num_nodes}), "
                            f"got {int(dirty[0] if dirty[0] < 0 else dirty[-1])}")
        offsets, targets, cost, roff, rsrc, reid = self._csr_arrays()
        nrem, nb, ns = K.remove(dirty, self.graph.walkable, offsets, targets,
                                 self.directed, roff, rsrc, self.hnode_of, self.children,
                                 self.hsize, self.hgen, self.harea, self.ccount,
                                 self.hmark, self.counters, self.removed, self.bnd,
                                 self.seeds, self.prev_area)
        changed = self._regroup(ns, nrem, nb, offsets, targets, cost, roff, rsrc, reid)
        self.updates += 1
        return changed

    def _regroup(self, ns, nrem, nb, offsets, targets, cost, roff, rsrc, reid):
        self.counters[K.C_NBUILT] = 0
        i = 0
        while True:
            i, need = K.group(self.seeds, i, ns, self.graph.walkable, offsets, targets,
                               cost, self.directed, roff, rsrc, reid, self.hnode_of,
                               self.children, self.hsize, self.hgen, self.harea, self.hprev,
                               self.hmixed, self.cstart, self.ccount, self.cnode, self.cgen, self.hfree,
                               self.hmark, self.counters, self.prev_area, self.built)
            if i >= ns:
                break
            self._make_room(need)
        nch = -1
        if self.builds:
            nch = K.flood_local(self.removed, nrem, self.bnd, nb, self.built, self.hsize,
                                 self.hgen, self.harea, self.hprev, self.hmixed, self.cstart,
                                 self.ccount, self.cnode, self.cgen, self.hmark,
                                 self.counters, self.uf, self.rid, self.acount, self.anew,
                                 self.aclaim, self.anote, self.afree, self.changed)
        if nch >= 0:
            self.local_updates += 1
            K.release(self.removed, nrem, self.hsize, self.hfree, self.counters)
            return np.sort(self.changed[:nch])
        nch = K.flood(self.hsize, self.hgen, self.harea, self.hprev, self.hmixed,
                       self.cstart,
                       self.ccount, self.cnode, self.cgen, self.counters, self.uf,
                       self.rid, self.acount, self.anew, self.aclaim, self.afree,
                       self.changed)
        K.release(self.removed, nrem, self.hsize, self.hfree, self.counters)
        return np.sort(self.changed[:nch])

    def warm_up(self) -> None:
        """Run the update kernels once without changing anything: regroup
        the hierarchical node of one walkable node, flood the small graph
        globally (ids stay), compact the connection lists."""
        walk = np.flatnonzero(self.graph.walkable[:4096])
        if walk.size:
            self.update(walk[:1])
        K.flood(self.hsize, self.hgen, self.harea, self.hprev, self.hmixed, self.cstart,
                 self.ccount, self.cnode, self.cgen, self.counters, self.uf, self.rid,
                 self.acount, self.anew, self.aclaim, self.afree, self.changed)
        K.compact(self.hsize, self.cstart, self.ccount, self.cnode, self.cgen,
                   self._cnode2, self._cgen2, self.counters)
        self.cnode, self._cnode2 = self._cnode2, self.cnode
        self.cgen, self._cgen2 = self._cgen2, self.cgen

    # -- queries --------------------------------------------------------------
    @property
    def num_hierarchical_nodes(self) -> int:
        return int(self.counters[K.C_NLIVE])

    @property
    def num_areas(self) -> int:
        return int(np.count_nonzero(self.acount[:self.counters[K.C_AHWM]]))

    def hierarchical_sizes(self) -> np.ndarray:
        """Member count of every live hierarchical node."""
        s = self.hsize[:self.counters[K.C_HWM]]
        return s[s > 0].copy()

    def hierarchical_nodes(self) -> np.ndarray:
        """The hierarchical node id of every node (int32, -1 for blocked
        nodes), as a copy: for pictures and tools, not for queries."""
        return self.hnode_of.copy()

    def areas(self, nodes=None) -> np.ndarray:
        """Area id per node (all nodes, or the int array ``nodes``), -1 for
        blocked nodes."""
        if nodes is None:
            out = np.empty(self.num_nodes, dtype=np.int32)
            K.all_areas(self.hnode_of, self.harea, out)
        else:
            out = np.empty(len(nodes), dtype=np.int32)
            K.node_areas(nodes, self.hnode_of, self.harea, out)
        return out

    def area(self, node: int) -> int:
        h = self.hnode_of[node]
        return int(self.harea[h]) if h >= 0 else -1

    def same_area(self, a, b) -> np.ndarray:
        out = np.empty(len(a), dtype=np.bool_)
        K.same_area(a, b, self.hnode_of, self.harea, out)
        return out

    def forward_reach(self, start: int) -> np.ndarray:
        """int8 mask of the nodes reachable from ``start`` along out-edges
        (a BFS; used on directed graphs)."""
        csr = self.graph.csr
        queue = self.graph.scratch("navcore_hierarchy.queue",
                                   lambda g: np.empty(g.num_nodes, dtype=np.int32))
        out = np.empty(self.num_nodes, dtype=np.int8)
        K.forward_reach(start, self.graph.walkable, csr.offsets, csr.targets, csr.cost,
                         queue, out)
        return out

    def nearest_reachable(self, point, start: int) -> int:
        """The walkable node closest to ``point`` that ``start`` can reach
        (-1 when ``start`` is blocked). Tries the node at ``point`` first."""
        graph = self.graph
        a = self.area(start)
        if a < 0:
            return -1
        if not graph.has_positions():
            raise QueryError(f"nearest_reachable needs node positions; graph "
                             f"{graph.graph_id!r} has none")
        near = graph.locate(point)
        pos = graph.positions
        pt = validate.point(point, pos.shape[1])
        if pos.shape[1] == 3 and np.shape(point) == (2,):
            # a top-down point, as locate reads it: nearest in (x, y) (the
            # scan is O(N) anyway, so is the copy)
            pos, pt = np.ascontiguousarray(pos[:, :2]), pt[:2].copy()
        if self.directed:
            mask = self.forward_reach(start)
            if near >= 0 and mask[near]:
                return int(near)
            hnode = np.where(mask > 0, 0, -1).astype(np.int32)
            return int(K.nearest_in_area(pos, hnode, np.zeros(1, np.int32), 0, pt))
        if near >= 0 and self.area(near) == a:
            return int(near)
        return int(K.nearest_in_area(pos, self.hnode_of, self.harea, a, pt))
