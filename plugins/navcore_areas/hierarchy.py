"""``Hierarchy``: connected components of one graph that survive updates.

The A* Pathfinding Project's hierarchical graph: real nodes are
grouped into hierarchical nodes of at most 256 (by BFS; on a grid, the
pieces of each 16x16 tile, see ``NavGraph.lattice``); the hierarchical
nodes and their links form a small graph whose components give every real
node an area id. An update removes only the hierarchical nodes that hold a
dirty node (tiles: the tiles of dirty cells whose walkability changed),
regroups those nodes and settles the areas that can have changed: merges
from the new nodes and their neighbours, a possible split by searches from
each piece taking turns, stopped when one is left (``_settle.py``); never a
flood of the whole small graph, which the A* Pathfinding Project does
after every update.

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

Area ids are small integers, stable while an area exists: an area that
neither split nor merged keeps its id; a merged one keeps the id of its
largest part (most hierarchical nodes); in a split the part the search did
not finish (the larger remainder) keeps it and the others get new ids. Ids
of areas that split, merged, appeared or vanished are reported to
``navcore_components_changed``. A full recalculation numbers the areas
0, 1, ... from the first node up.
"""
from __future__ import annotations

import numpy as np

from navcore import limits, validate
from navcore.errors import NodeError, QueryError
from navcore.views import DerivedView

from . import _bands as B
from . import _generic as G
from . import _kernels as K
from . import _lattice as L
from . import _settle as S
from ._base import (AREA64_ROWS, AREA_ROWS, C_STAMP, CLAIM_ROWS, EDGE_ROWS, NODE_ROWS, Claims,
                    Links, Nodes, Removal)


#: room an update needs per tile it regroups: a 16 x 16 tile holds at most
#: 128 pieces and 64 border cells (8 links each at most)
_TILE_IDS, _TILE_LINKS = 129, 8 * 64
#: what an update that changed no area returns (read-only, shared)
_NO_CHANGE = np.empty(0, dtype=np.int32)
_NO_CHANGE.flags.writeable = False
_INT32 = np.dtype(np.int32)


def _sorted_ids(dirty):
    """``dirty`` as sorted, distinct int32 ids."""
    return np.unique(np.asarray(dirty).astype(np.int64)).astype(np.int32)


class Hierarchy(DerivedView):
    """The hierarchical graph of one ``NavGraph`` (see the module docs), a
    derived view (``navcore.views``) that follows every update.

    Build and update are separate from queries (Detour style): queries only
    read ``hnode_of`` and ``harea``; ``update`` edits them in place and must
    not run while a query on the same graph runs (``World.tick`` applies
    updates between queries).
    """

    #: the 2-D blocks whose rows are also kept under their own names (views)
    _BLOCKS = {"_node_rows": NODE_ROWS, "_area_rows": AREA_ROWS,
               "_area64_rows": AREA64_ROWS, "_edge_rows": EDGE_ROWS,
               "_claim_rows": CLAIM_ROWS}

    def __getstate__(self):
        # pickled, a row would become a copy of its own that the kernels'
        # writes into the block no longer reach (an adopted graph's areas
        # stopped following updates): the rows are made again on load
        state = dict(self.__dict__)
        for block, names in self._BLOCKS.items():
            if state.get(block) is not None:
                for name in names:
                    state.pop(name, None)
        state["_largs"] = None
        state["_kgroups"] = None
        state["_unannounced"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for block, names in self._BLOCKS.items():
            arr = state.get(block)
            if arr is not None:
                for i, name in enumerate(names):
                    setattr(self, name, arr[i])
        self._largs = None
        self._kgroups = None
        self._unannounced = None

    def __init__(self, graph):
        graph = validate.graph(graph)
        super().__init__(graph)
        #: ``update_tiles``'s arguments (``_lattice_args``); every method
        #: that replaces an array sets it back to None
        self._largs = None
        #: the build and regrouping kernels' groups of arrays (``_groups``),
        #: None again like ``_largs``
        self._kgroups = None
        #: the area ids the last update changed, until ``_take_changed``
        self._unannounced = None
        n = graph.num_nodes
        self.num_nodes = n
        self.directed = bool(graph.directed)
        #: ``(height, width, diagonal)`` when the graph is a lattice
        #: (``NavGraph.lattice``): grouped by tiles, else by BFS
        self.lattice = None if self.directed else graph.lattice()
        self.hnode_of = np.full(n, -1, dtype=np.int32)
        self.prev_area = np.full(n, -1, dtype=np.int32)
        self.counters = np.zeros(K.N_COUNTERS, dtype=np.int64)
        self.hcap = self.pcap = 0
        if self.lattice is None:
            self.seeds = np.empty(n, dtype=np.int32)
            self._alloc_nodes(max(16, n // 128 + 16))
            self._alloc_pairs(max(64, 4 * (n // 128 + 16)))
        else:
            H, W, _ = self.lattice
            ntiles = -(-H // K.TILE) * -(-W // K.TILE)
            self.tmark = np.zeros(ntiles, dtype=np.int64)
            self.tiles = np.empty(ntiles, dtype=np.int32)
            self.stack = np.empty(K.TILE * K.TILE, dtype=np.int32)
            self._alloc_nodes(max(16, n // 64 + 16))
        self.cl_node = self.cl_area = np.empty(0, dtype=np.int32)
        # claims: a lattice update holds at most 256 per tile it touches
        self._alloc_claims(1024 if self.lattice is None else 16 * K.TILE * K.TILE)
        self.builds = 0            # full recalculations so far
        self.updates = 0           # incremental updates so far
        self.local_updates = 0     # of which settled without a split search
        self.searched_nodes = 0    # hierarchical nodes the split searches walked
        self.recalculate()

    # -- storage --------------------------------------------------------------
    def _alloc_nodes(self, hcap):
        """(Re)allocate the per-hierarchical-node arrays with room for
        ``hcap`` ids, keeping what is there (amortised doubling: no
        allocation in a steady stream of updates).

        Memory: about 120 bytes per id, plus, on graphs that are not
        lattices, a block of ``MAX_CHILDREN`` member slots per id (1 KB),
        so that regrouping never moves members between blocks. A graph
        whose nodes group well (a few hundred per hierarchical node) pays
        a few bytes per node; one made of many isolated nodes pays 1-2 KB
        each (doubling), so the growth is checked against free memory
        first (``CapacityError``, the world unchanged) instead of swapping."""
        per_id = 130 + (0 if self.lattice is not None else 4 * K.MAX_CHILDREN)
        prev = self.hcap or None
        limits.check_memory(f"the areas of a graph of {self.num_nodes} nodes "
                            f"({hcap} hierarchical nodes)", hcap * per_id)

        self._grow_rows("_node_rows", NODE_ROWS, np.int32, hcap)
        self.ehead[prev or 0:] = -1         # new ids have no links
        if self.lattice is None:
            arr = np.zeros(hcap * K.MAX_CHILDREN, dtype=np.int32)
            if prev is not None:
                arr[:self.children.size] = self.children
            self.children = arr
        acap = 2 * hcap + 2      # old and new area ids can coexist in one update
        self._grow_rows("_area_rows", AREA_ROWS, np.int32, acap)
        self._grow_rows("_area64_rows", AREA64_ROWS, np.int64, acap)
        self.hcap = hcap

    def _grow_rows(self, block, names, dtype, size, fill=0):
        """(Re)allocate the 2-D ``block`` of rows ``names`` (``_base``) with
        ``size`` columns, keeping what is there; each row is also kept
        under its own name (a view)."""
        arr = np.full((len(names), size), fill, dtype=dtype)
        prev = getattr(self, block, None)
        if prev is not None:
            k = min(prev.shape[1], size)
            arr[:, :k] = prev[:, :k]
        setattr(self, block, arr)
        for i, name in enumerate(names):
            setattr(self, name, arr[i])
        self._largs = None
        self._kgroups = None

    def _alloc_pairs(self, pcap):
        """Room for ``pcap`` links (pairs of half-edges), keeping them."""
        self._grow_rows("_edge_rows", EDGE_ROWS, np.int32, 2 * pcap)
        self.pcap = pcap

    def _alloc_claims(self, size):
        if size > self.cl_node.size:
            self._claim_rows = None         # (written before they are read)
            self._grow_rows("_claim_rows", CLAIM_ROWS, np.int32, size)

    def _ensure(self, ids, pairs):
        """At least ``ids`` unused hierarchical ids and ``pairs`` free links."""
        c = self.counters
        if self.hcap - c[K.C_HWM] + c[K.C_NFREE] < ids:
            self._alloc_nodes(max(2 * self.hcap, int(c[K.C_HWM]) + ids))
        if self.pcap - c[K.C_ELIVE] < pairs:
            self._alloc_pairs(max(2 * self.pcap, int(c[K.C_ELIVE]) + pairs))

    def _csr_arrays(self):
        csr = self.graph.csr
        if self.directed:
            rev = csr.reverse()
            return G.Csr(csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets,
                         rev.edge_ids)
        empty64 = np.zeros(1, dtype=np.int64)
        empty32 = np.zeros(0, dtype=np.int32)
        return G.Csr(csr.offsets, csr.targets, csr.cost, empty64, empty32, empty64)

    def _groups(self):
        """``(Nodes, Links, Claims, Removal)`` (``_base``): the arrays of the
        build and regrouping kernels, made again after an array is replaced."""
        groups = self._kgroups
        if groups is None:
            groups = (Nodes(self.hnode_of, self.hsize, self.harea, self.hfree),
                      Links(self.ehead, self.enext, self.eprev, self.eto),
                      Claims(self.prev_area, self.built, self.cl_node, self.cl_area,
                             self.aseen),
                      Removal(self.removed, self.rarea, self.bnd))
            self._kgroups = groups
        return groups

    # -- build and update -----------------------------------------------------
    def recalculate(self) -> np.ndarray:
        """Rebuild everything from scratch; returns the changed area ids
        (all areas, numbered 0, 1, ... from the lowest node up)."""
        c = self.counters
        stamp = c[C_STAMP]    # hmark, tmark, aseen, ... hold stamps up to it:
        c[:] = 0                # a reset stamp would match stale marks
        c[C_STAMP] = stamp
        c[K.C_EFREE] = -1
        if self.lattice is not None:    # (prev_area is written before it is read)
            self._recalculate_lattice()
        else:
            self._recalculate_generic()
        k = S.flood_all(self.hsize, self.harea, self.ehead, self.enext, self.eto, self.uf,
                        self.acount, c)
        self.builds += 1
        return np.arange(k, dtype=np.int32)

    def _recalculate_lattice(self):
        H, W, diag = self.lattice
        walk = self.graph.walkable.view(np.uint8)
        m = L.band_runs(W)
        if self.pcap < 4 * L.band_links(W, diag):
            self._alloc_pairs(4 * L.band_links(W, diag))
        # bit-packed rows (_bands.py): 4-neighbours or corners cut
        work = B.scratch(W)
        lat = L.Lattice(walk, W, H, diag)
        y = 0
        while y < H:
            nodes, links, _, _ = self._groups()
            y = B.label_bands(lat, y, work, nodes, links, self.counters)
            if y < H:           # room for one more band's worst case
                self._ensure(m, L.band_links(W, diag))
        # room for an update of 3 x 3 tiles now, so that the first updates
        # after a build do not grow every array in a frame (~1 ms)
        self._ensure(_TILE_IDS * 9, _TILE_LINKS * 9)

    def _recalculate_generic(self):
        self.prev_area[:] = -1          # no claims: every area is new
        self.hnode_of[:] = -1
        self.hsize[:] = 0
        self.ehead[:] = -1
        walk = np.flatnonzero(self.graph.walkable).astype(np.int32)
        self.seeds[:walk.size] = walk
        self._group(walk.size)

    def _group(self, ns):
        csr = self._csr_arrays()
        c = self.counters
        c[K.C_NBUILT] = 0
        c[K.C_NCLAIM] = 0
        i = 0
        while True:
            nodes, links, claims, _ = self._groups()
            i, need = G.group(self.seeds, i, ns, self.graph.walkable, csr, self.directed, nodes,
                              self.children, links, self.hmark, c, claims)
            if i >= ns:
                return
            if need == 0:
                self._alloc_nodes(2 * self.hcap)
            else:
                self._alloc_pairs(max(2 * self.pcap, int(c[K.C_ELIVE]) + need))

    def _grow(self, num_nodes: int) -> None:
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
        self._largs = None
        self._kgroups = None

    def _update(self, dirty, _fused=True) -> np.ndarray:
        """Regroup the hierarchical nodes touched by ``dirty`` nodes and
        settle the areas they can change; returns the ids of areas that
        split, merged, appeared or vanished (empty when connectivity did
        not change)."""
        if type(dirty) is not np.ndarray:
            dirty = np.asarray(dirty)
        if dirty.dtype is not _INT32 and dirty.dtype != _INT32:
            dirty = _sorted_ids(dirty)
        if dirty.size == 0:
            return _NO_CHANGE
        c = self.counters
        if self.lattice is not None:
            nrem, nb, nch = self._update_lattice(dirty, _fused)
            if nch >= 0:                  # settled in the one kernel call
                return self._finish(c, nch)
        else:
            if dirty.size > 1 and (dirty[1:] <= dirty[:-1]).any():
                dirty = _sorted_ids(dirty)
            self._check_range(dirty)
            nodes, links, _, removal = self._groups()
            nrem, nb, ns = G.remove(dirty, self.graph.walkable, nodes, self.children, links,
                                    self.hmark, c, self.acount, removal, self.seeds,
                                    self.prev_area)
            self._alloc_claims(ns)
            self._group(ns)
        nch = S.settle(nrem, nb, self._node_rows, self._area_rows, self._area64_rows,
                       self._edge_rows, self._claim_rows, c)
        L.free_removed(self.removed, nrem, self.hfree, c)
        return self._finish(c, nch)

    def _update_lattice(self, dirty, fused=True):
        """A lattice update: one kernel call (``_lattice.update_tiles``)
        when the arrays have room, else removal, growth and the rebuild
        (the settle is left to the caller). Returns ``(n_removed,
        n_boundary, n_changed)``, ``n_changed`` -1 when the caller settles.
        ``fused=False`` takes the second way (``warm_up`` loads both)."""
        args = self._largs
        if args is None or args[0] is not self.graph.walkable:
            args = self._lattice_args()
        for _ in range(2):          # the kernel checks the order (a grid's are sorted)
            nt, nrem, nb, nch = L.update_tiles(dirty, *args, _TILE_IDS if fused else -1,
                                               _TILE_LINKS)
            if nt != -1:
                break
            dirty = _sorted_ids(dirty)
        if nt == -2:
            self._check_range(dirty)
        if nch >= 0:
            return nrem, nb, nch
        H, W, diag = self.lattice
        c = self.counters
        self._ensure(_TILE_IDS * nt, _TILE_LINKS * nt)
        self._alloc_claims(K.TILE * K.TILE * nt)
        nodes, links, claims, _ = self._groups()
        L.rebuild_tiles(self.tiles, nt, L.Lattice(self.graph.walkable, W, H, diag), nodes,
                        links, c, claims, self.stack)
        return nrem, nb, -1

    def _lattice_args(self):
        """``update_tiles``'s arguments after ``dirty``, gathered once: 40
        attribute loads per update, from a dict the frame's other work
        evicted, cost more than the kernel's own dispatch."""
        H, W, diag = self.lattice
        args = (self.graph.walkable, W, H, diag, self.hnode_of, self.prev_area, self._node_rows,
                self._area_rows, self._area64_rows, self._edge_rows, self._claim_rows,
                self.tmark, self.tiles, self.stack, self.counters)
        self._largs = args
        return args

    def _finish(self, c, nch):
        self.updates += 1
        searched = int(c[K.C_SEARCHED])
        if searched == 0:
            self.local_updates += 1
        self.searched_nodes += searched
        return self.changed[:nch].copy() if nch else _NO_CHANGE   # (settle sorted them)

    def _note_changed(self, changed) -> None:
        """Keep the area ids an update changed for ``_take_changed`` (the
        plugin follows a batch first and announces it last)."""
        self._unannounced = changed

    def _take_changed(self):
        """The ids ``_note_changed`` kept (None if none), forgotten."""
        changed, self._unannounced = self._unannounced, None
        return changed

    def _check_range(self, dirty):
        if dirty[0] < 0 or dirty[-1] >= self.num_nodes:
            raise NodeError(f"dirty node ids must lie in [0, {self.num_nodes}), "
                            f"got {int(dirty[0] if dirty[0] < 0 else dirty[-1])}")

    def warm_up(self) -> None:
        """Run the update kernels once without changing anything (regroup
        around one walkable node and settle)."""
        walk = self.graph.first_walkable()      # wherever it is (first rows of walls)
        if walk.size:
            counts = self.updates, self.local_updates, self.searched_nodes
            # a few times: the first runs of the Python around the kernel
            # (the interpreter specialises it) cost a first frame ~2x
            for _ in range(4):
                self._update(walk[:1].astype(np.int32))
            if self.lattice is not None:     # and the kernels of a growing update
                self._update(walk[:1].astype(np.int32), _fused=False)
            self.updates, self.local_updates, self.searched_nodes = counts

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
        """Area id per node (all nodes, or the node ids ``nodes``), -1 for
        blocked nodes; ``NodeError`` for ids that are not nodes."""
        if nodes is not None:
            nodes = validate.node_ids(nodes, self.num_nodes)
        return self._areas(nodes)

    def area(self, node: int) -> int:
        """The area id of ``node`` (-1 when it is blocked)."""
        return self._area(validate.node_id(node, self.num_nodes))

    def same_area(self, a, b) -> np.ndarray:
        """bool per pair: ``a[i]`` and ``b[i]`` are walkable and in one area."""
        a = validate.node_ids(a, self.num_nodes, "a")
        b = validate.node_ids(b, self.num_nodes, "b")
        if a.shape != b.shape:
            raise NodeError(f"same_area needs as many a as b, got {a.size} and {b.size}")
        return self._same_area(a, b)

    # the unchecked forms, for this plugin's hooks (the world checked the ids)
    def _areas(self, nodes) -> np.ndarray:
        if nodes is None:
            out = np.empty(self.num_nodes, dtype=np.int32)
            K.all_areas(self.hnode_of, self.harea, out)
        else:
            out = np.empty(len(nodes), dtype=np.int32)
            K.node_areas(nodes, self.hnode_of, self.harea, out)
        return out

    def _area(self, node: int) -> int:
        h = self.hnode_of[node]
        return int(self.harea[h]) if h >= 0 else -1

    def _same_area(self, a, b) -> np.ndarray:
        out = np.empty(len(a), dtype=np.bool_)
        K.same_area(a, b, self.hnode_of, self.harea, out)
        return out

    def forward_reach(self, start: int) -> np.ndarray:
        """int8 mask of the nodes reachable from ``start`` along out-edges
        (a BFS; used on directed graphs)."""
        start = validate.node_id(start, self.num_nodes, "start")
        csr = self.graph.csr
        queue = self.graph.scratch("navcore_areas.queue",
                                   lambda g: np.empty(g.num_nodes, dtype=np.int32))
        out = np.empty(self.num_nodes, dtype=np.int8)
        K.forward_reach(start, self.graph.walkable, csr.offsets, csr.targets, csr.cost,
                         queue, out)
        return out

    def nearest_reachable(self, point, start: int) -> int:
        """The walkable node closest to ``point`` that ``start`` can reach
        (-1 when ``start`` is blocked). Tries the node at ``point`` first."""
        start = validate.node_id(start, self.num_nodes, "start")
        graph = self.graph
        a = self._area(start)
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
        if near >= 0 and self._area(near) == a:
            return int(near)
        return int(K.nearest_in_area(pos, self.hnode_of, self.harea, a, pt))
