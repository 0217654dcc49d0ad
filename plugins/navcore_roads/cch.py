"""Customizable contraction hierarchies of road graphs (live traffic):
``contract(graph, customizable=True)`` builds one, after which
``algorithm="cch"`` and ``"auto"`` routes, ``distance_pairs``,
``distance_matrix`` and ``routes`` answer from it, and every batch of
updates (closures, jams, speeds, blocked junctions) is followed at once by
a new customization, so the hierarchy stays current.

Three parts, as Dibbelt, Strasser and Wagner split them:

* the order (``node_order``): nested dissection with inertial-flow
  separators on the node coordinates (graphs without coordinates get
  hop-distance pseudo-coordinates), metric-independent, computed once per
  topology, saved with the hierarchy;
* the topology (:class:`CCHTopology`): the chordal supergraph of the road
  network contracted in that order, without witness searches, and its
  elimination tree;
* the metric: the supergraph's arcs weighted for the costs now, by basic
  (and, with ``perfect``, perfect) customization (``_cch.py``); after a
  perfect one the directions no shortest path needs are left out of the
  query graphs.

``RoadCCH.customize()`` reruns the metric for the graph's costs now; the
view is ``current`` from then until the next update (``DerivedView``), and a
stale one is never used. ``follow_updates`` (default True) makes the roads
plugin customize again after every applied batch: inline, or, when the
last customization took longer than the frame budget, as a scheduler job
swapped in at a later tick, with queries falling back to bidirectional
search (exact) meanwhile (:meth:`RoadCCH.follow`).

>>> import navcore, navcore_roads
>>> w = navcore.World()
>>> g = w.add_graph("r", type="roads", src=[0, 1, 2], dst=[1, 2, 0],
...                 length=[100.0, 100.0, 100.0], speed=36.0)
>>> h = navcore_roads.contract(g, customizable=True)
>>> r = w.find_path("r", 0, 2)
>>> r.algorithm, r.nodes.tolist(), r.cost
('cch', [0, 1, 2], 20.0)
>>> w.update("r", edges=[(1, 2)], factor=2.0); _ = w.tick()
>>> h.current, w.find_path("r", 0, 2).cost
(True, 30.0)
"""
from __future__ import annotations

import hashlib
import threading
import time

import numba
import numpy as np

from navcore.errors import GraphError, QueryError
from navcore.files import npz_bytes, write_atomic
from navcore.parallel import kernel_threads, threads_for
from navcore.types import PathResult
from navcore.views import DerivedView

from navcore_csr.hierarchy import end_ranks, expanded_out, node_ranks

from . import _cch as K
from . import _cch_update as U
from .ch import need_view
from .search import hierarchy_route, warm_hierarchy
from . import _order as O

VIEW_KEY = "navcore_roads.cch"
FORMAT = "navcore-road-cch-1"
#: fraction of a part's nodes that form the source (and the sink) of a cut
BALANCE = 0.25
#: parts this small are ordered by degree, not cut further
LEAF = 4
#: pairs from which ``distances`` and ``paths`` search on several threads,
#: and cells from which ``matrix`` does (measured as for the CH's, see
#: ``hierarchy.PAIRS_PARALLEL_FROM``: 32 pairs 0.20 ms on one thread, 0.08
#: on two; 50x50 0.54 and 0.24 ms)
PAIRS_PARALLEL_FROM = 32
MATRIX_PARALLEL_FROM = 1024
#: a customization after a batch recomputes only the arcs the changed costs
#: reach (``_cch_update``), and gives up for the whole pass once those pass
#: this fraction of the arcs (measured on the 250k-node generated network:
#: 0.7-1.1 us an arc recomputed, the whole pass 82 ms on two cores, even at
#: about 8% of its 1.13M arcs; a batch that gives up costs at most 1.5x)
PARTIAL_MAX_FRACTION = 0.05


def _threads() -> int:
    return max(int(numba.config.NUMBA_NUM_THREADS), 1)


def _undirected(offsets, targets):
    n = offsets.shape[0] - 1
    return O.undirected(n, offsets, targets)


def node_order(offsets, targets, positions=None) -> np.ndarray:
    """The nested-dissection order of the graph under CSR ``offsets``/
    ``targets`` (directions ignored): int64 ``order[rank] = node``.
    ``positions``: ``(N, 2)`` (lon, lat) degrees, or None (pseudo-coordinates
    from hop distances)."""
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    targets = np.ascontiguousarray(targets, dtype=np.int32)
    first, head, twin = _undirected(offsets, targets)
    if positions is None:
        x, y = O.pseudo_coordinates(first, head)
    else:
        pos = np.asarray(positions, dtype=np.float64)
        # metres-like axes: a degree of longitude shrinks with latitude
        lat = pos[:, 1]
        scale = np.cos(np.radians(float(np.median(lat)))) if lat.size else 1.0
        x = np.ascontiguousarray(pos[:, 0] * scale)
        y = np.ascontiguousarray(lat)
    return O.nested_dissection(first, head, twin, x, y, BALANCE, LEAF)


class CCHTopology:
    """The metric-independent part: order, supergraph (CSR over ranks),
    its transpose, elimination tree and levels, and the arc of every input
    edge. Build it with :meth:`build`."""

    def __init__(self, order, offsets, targets):
        n = offsets.shape[0] - 1
        self.num_nodes = n
        self.num_edges = int(targets.shape[0])
        self.order = order
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[order] = np.arange(n, dtype=np.int64)
        first, head, _ = _undirected(offsets, targets)
        self.up_first, self.up_head, self.parent = K.chordal(first, head, order, self.rank)
        (self.down_first, self.down_tail, self.down_arc,
         self.arc_low) = K.down_graph(self.up_first, self.up_head)
        self.level_first, self.level_nodes, self.depth = K.tree_levels(self.parent)
        self.edge_arc, self.edge_up = K.edge_arcs(offsets, targets, self.rank, self.up_first,
                                                  self.up_head)
        #: the subtree groups customized side by side (when the arcs pay for
        #: it: ``_cch.PAR_MIN_ARCS``)
        self.part_first, self.part_nodes = K.tree_parts(
            self.parent, self.up_first, self.down_first, self.down_tail, self.down_arc,
            _threads())
        #: arc ids, the query graphs' "arc" column when every arc is kept
        self.arc_ids = np.arange(self.num_arcs, dtype=np.int64)
        self._arc_edges = None
        #: what a customization reads, as ``_cch.customize`` takes it
        self.arrays = K.Topology(self.edge_arc, self.edge_up, self.up_first, self.up_head,
                                 self.down_first, self.down_tail, self.down_arc,
                                 self.part_first, self.part_nodes)

    @classmethod
    def build(cls, offsets, targets, order) -> "CCHTopology":
        order = check_order(order, offsets.shape[0] - 1)
        return cls(order, offsets, targets)

    def arc_edges(self):
        """``(first, edges)``: each arc's input edges, ascending (what a
        partial customization recomputes an arc from), made on first use."""
        if self._arc_edges is None:
            self._arc_edges = U.arc_edges(self.edge_arc, self.num_arcs)
        return self._arc_edges

    @property
    def num_arcs(self) -> int:
        return int(self.up_head.shape[0])

    @property
    def parallel(self) -> bool:
        """Whether a customization may run on several threads: enough arcs
        to pay for it (``_cch.PAR_MIN_ARCS``) and more than one numba thread."""
        return _threads() > 1 and self.num_arcs >= K.PAR_MIN_ARCS


def check_order(order, n) -> np.ndarray:
    """``order`` as int64 if it is a permutation of ``0..n-1``, else
    ``GraphError`` saying what is wrong."""
    a = np.asarray(order)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise GraphError(f"order must be a 1-d array of node ids, got dtype {a.dtype} and "
                         f"shape {a.shape}")
    if a.shape[0] != n:
        raise GraphError(f"order must list each of the {n} nodes once, got {a.shape[0]} "
                         f"entries")
    a = a.astype(np.int64)
    if n and (a.min() < 0 or a.max() >= n or np.unique(a).shape[0] != n):
        raise GraphError(f"order must be a permutation of the node ids 0..{n - 1}")
    return np.ascontiguousarray(a)


class Metric:
    """One customization's arrays. A metric is filled once per
    customization and then only read; ``RoadCCH`` keeps two and fills the
    one not answering (no allocation, no page faults, in the steady
    state), so a query on another thread sees the old metric or the new
    one whole, as long as it ends before the customization after next."""

    __slots__ = ("w_up", "w_down", "mid_up", "mid_down", "src_up", "src_down", "b_up",
                 "b_down", "fwd", "bwd", "_graphs", "cost", "seconds", "perfect", "version",
                 "weights", "unpack", "recomputed")

    def __init__(self, topo: CCHTopology):
        m = topo.num_arcs
        self.w_up, self.w_down = np.empty(m), np.empty(m)
        self.mid_up = np.empty(m, dtype=np.int32)
        self.mid_down = np.empty(m, dtype=np.int32)
        self.src_up = np.empty(m, dtype=np.int64)
        self.src_down = np.empty(m, dtype=np.int64)
        self.weights = K.Weights(self.w_up, self.w_down, self.mid_up, self.mid_down,
                                 self.src_up, self.src_down)
        self.b_up = self.b_down = self._graphs = None     # perfect customizations only
        self.fwd = self.bwd = self.cost = self.unpack = None
        self.seconds = 0.0
        self.perfect = False
        self.version = -1
        #: arcs the last customization computed again (a partial one), or -1
        #: (the whole metric)
        self.recomputed = -1

    def _partial(self, topo: CCHTopology, cost, perfect: bool, scratch, marks) -> int:
        """Update the basic weights this metric holds for its last costs to
        ``cost``, recomputing only the arcs the changed edges reach: the
        arcs recomputed, or -1 when it cannot (no earlier customization of
        this kind) or would not pay (``scratch``'s budget passed: the
        weights are then half done, for the whole pass to redo)."""
        if scratch is None or self.cost is None or self.perfect != perfect:
            return -1
        queued, heap, budget = scratch
        if perfect:          # the basic weights of a perfect metric are kept in b_*
            wts = K.Weights(self.b_up, self.b_down, self.mid_up, self.mid_down, self.src_up,
                            self.src_down)
        else:
            wts = self.weights
        first, edges = topo.arc_edges()
        return int(U.update(topo.arrays, first, edges, topo.arc_low, self.cost, cost, wts,
                            queued, heap, budget, marks[0]))

    def compute(self, topo: CCHTopology, cost, marks, perfect: bool, version: int,
                threads=None, scratch=None) -> "Metric":
        """Customize for edge costs ``cost`` (kept: paths sum them): basic,
        then perfect if asked, on ``threads``' threads (a graph, a count,
        None: see ``navcore.parallel.max_threads``) when the arcs pay for
        it. With ``scratch`` (``(queued, heap, budget)``, see
        ``_cch_update.update``) the basic weights this metric holds are
        updated from its last costs when few arcs change, bit for bit what
        the whole pass gives; the perfect pass, when asked, then runs whole
        (its arcs read every arc above them). The query graphs are the
        supergraph itself after a basic customization (every finite arc),
        the arcs a shortest path may use after a perfect one."""
        t0 = time.perf_counter()
        self.recomputed = self._partial(topo, cost, perfect, scratch, marks)
        if self.recomputed < 0:
            with kernel_threads(threads, topo.num_arcs, K.PAR_MIN_ARCS) as used:
                parallel = used > 1
                K.customize(topo.arrays, cost, marks, parallel, self.weights)
        elif perfect:        # the perfect pass starts from the basic weights
            self.w_up[:] = self.b_up
            self.w_down[:] = self.b_down
        if perfect:
            m, n = topo.num_arcs, topo.num_nodes
            if self.b_up is None:
                self.b_up, self.b_down = np.empty(m), np.empty(m)
                self._graphs = [(np.empty(n + 1, dtype=np.int64), np.empty(m, dtype=np.int32),
                                 np.empty(m), np.empty(m, dtype=np.int64)) for _ in range(2)]
            with kernel_threads(threads, topo.num_arcs, K.PAR_MIN_ARCS) as used:
                K.perfect(topo.up_first, topo.up_head, topo.part_first, topo.part_nodes,
                          used > 1, self.w_up, self.w_down, self.b_up, self.b_down)
            graphs = []
            for w, b, (first, head, wt, arc) in zip((self.w_up, self.w_down),
                                                     (self.b_up, self.b_down), self._graphs):
                k = K.query_graph(topo.up_first, topo.up_head, w, b, first, head, wt, arc)
                graphs.append(K.QueryGraph(first, head[:k], wt[:k], arc[:k]))
            self.fwd, self.bwd = graphs
        else:
            self.fwd = K.QueryGraph(topo.up_first, topo.up_head, self.w_up, topo.arc_ids)
            self.bwd = K.QueryGraph(topo.up_first, topo.up_head, self.w_down, topo.arc_ids)
        self.cost = cost
        self.unpack = K.Unpack(topo.up_first, topo.up_head, topo.arc_low, self.mid_up,
                               self.mid_down, self.src_up, self.src_down, cost)
        self.perfect = bool(perfect)
        self.version = version
        self.seconds = time.perf_counter() - t0
        return self


def topology_fingerprint(graph) -> str:
    """What the order depends on: the node count and the edges (not costs)."""
    csr = graph.csr
    h = hashlib.sha1()
    for a in (np.array([graph.num_nodes]), csr.offsets, csr.targets):
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return h.hexdigest()


class RoadCCH(DerivedView):
    """The customizable contraction hierarchy of one road graph: current
    while its last customization is for the graph's version."""

    def __init__(self, graph, topology: CCHTopology, fingerprint: str, order_seconds=0.0,
                 topology_seconds=0.0):
        super().__init__(graph)
        self.version = -1                      # stale until customized
        self.topology = topology
        self.fingerprint = fingerprint
        self.order_seconds = float(order_seconds)
        self.topology_seconds = float(topology_seconds)
        #: customize again after every applied batch (the roads plugin's
        #: ``navcore_graph_updated``): inline, or as a scheduler job when the
        #: last customization took longer than the frame budget (see
        #: :meth:`follow`); False leaves it to the caller
        self.follow_updates = True
        #: also run the perfect customization (a customization then takes
        #: 2.3-2.9x as long; pair queries skip the arcs no shortest path
        #: uses, 1.2-1.8x faster, matrices about the same). Off by default:
        #: with live traffic the customization after every batch is what
        #: must be quick, and the basic one alone is exact
        self.perfect = False
        self.metric = None
        self.customizations = 0
        self.background_customizations = 0
        self._marks = np.full((_threads(), topology.num_nodes), -1, dtype=np.int64)
        self._partial_scratch = None           # the partial customizations' scratch
        self._customizing = threading.Lock()   # one customization at a time (the marks)
        self._state = threading.Lock()         # the fields below
        self._free = []                        # metrics no query uses: filled next
        self._next = None                      # (cost, version) a job is to customize for
        self._ready = None                     # a job's metric, swapped in at a tick
        self._idle = threading.Event()         # no job running or queued
        self._idle.set()

    def _check_topology(self):
        graph = self.graph
        if graph.num_nodes != self.topology.num_nodes \
                or graph.csr.num_edges != self.topology.num_edges:
            raise GraphError(f"road graph {graph.graph_id!r} changed its topology; build the "
                             f"customizable hierarchy again with contract(graph, "
                             f"customizable=True)")

    def costs(self) -> np.ndarray:
        """The input edges' costs now, what a customization weights the
        hierarchy for (a copy: a background job never reads the graph):
        the road costs with blocked junctions' roads closed."""
        from .ch import effective_costs
        return effective_costs(self.graph)

    def _scratch(self):
        """``(queued, heap, budget)`` of the partial customizations (made on
        first use; the caller holds ``_customizing``)."""
        if self._partial_scratch is None:
            m = self.topology.num_arcs
            budget = max(int(m * PARTIAL_MAX_FRACTION), 1)
            self._partial_scratch = (np.zeros(m, dtype=np.uint8), np.empty(budget, dtype=np.int64),
                             budget)
        return self._partial_scratch

    def _warm_partial(self) -> None:
        """Load the partial customization's kernel (run on the metric's own
        costs: nothing changes), so the first batch in a tick loads nothing."""
        m = self.metric
        if m is None:
            return
        topo = self.topology
        with self._customizing:
            first, edges = topo.arc_edges()
            queued, heap, _ = self._scratch()
            U.update(topo.arrays, first, edges, topo.arc_low, m.cost, m.cost, m.weights, queued,
                     heap, 0, self._marks[0])

    def _fill(self, cost, version, partial=True) -> Metric:
        """A metric customized for ``cost`` (the caller holds ``_customizing``):
        with ``partial``, the free metric updated from its own last costs
        when few arcs change (:meth:`Metric.compute`)."""
        with self._state:
            metric = self._free.pop() if self._free else None
        if metric is None:
            metric = Metric(self.topology)
        scratch = self._scratch() if partial else None
        return metric.compute(self.topology, cost, self._marks, bool(self.perfect), version,
                              self.graph, scratch)

    def _swap(self, metric: Metric) -> None:
        """Answer from ``metric`` from now on (the caller holds ``_state``)."""
        old, self.metric = self.metric, metric
        self.version = metric.version
        self.customizations += 1
        if old is not None:
            self._free.append(old)

    def customize(self, partial: bool = True) -> "RoadCCH":
        """Weight the hierarchy for the graph's costs now (closed roads and
        blocked junctions: inf); it is ``current`` after, until the next
        update. Safe while other threads query: the metric is swapped whole
        (see :class:`Metric`). ``partial`` (default): recompute only the
        arcs that the costs changed since the metric being filled was
        customized reach, when they are few (``PARTIAL_MAX_FRACTION``),
        with the same result bit for bit; False: the whole pass always."""
        if not isinstance(partial, (bool, np.bool_)):
            raise GraphError(f"partial must be True or False, got {partial!r}")
        self._check_topology()
        with self._customizing:
            version = self.graph.version       # first: an update from here on leaves it stale
            metric = self._fill(self.costs(), version, bool(partial))
            with self._state:
                self._swap(metric)
        return self

    # -- customizing off the ticking thread -----------------------------------------
    def estimate_seconds(self) -> float:
        """What the next customization will take: the last one's time (0
        before any)."""
        return 0.0 if self.metric is None else float(self.metric.seconds)

    def follow(self, world) -> None:
        """After an applied batch: customize again for the costs now, inline
        when that fits the world's frame budget (by :meth:`estimate_seconds`),
        in a deterministic world (its frames must not depend on the clock)
        or without scheduler workers; else as a scheduler job for a copy of
        the costs, swapped in by :meth:`adopt` at a later tick. Until then
        the view is stale, so ``auto`` answers by bidirectional search (exact
        on the updated costs). A batch arriving while a job runs supersedes
        the costs it waits to customize next; one job at a time."""
        if not self.follow_updates or self.current:
            return
        sched = getattr(world, "scheduler", None)
        budget = float(getattr(world, "frame_budget_ms", np.inf)) / 1e3
        inline = self.estimate_seconds() <= budget and self._idle.is_set()   # (a running
        if getattr(world, "deterministic", False) or sched is None \
                or not getattr(sched, "workers", 0) or inline:   # job would make it wait)
            self.customize()
            return
        self._check_topology()
        cost = self.costs()                    # copied here: the job never reads the graph
        with self._state:
            self._next = (cost, self.graph.version)
            if not self._idle.is_set():
                return                         # the running job takes it next
            self._idle.clear()
        sched.schedule(self._background)

    def _background(self) -> None:
        """The scheduler job: customize for the latest requested costs until
        no newer ones wait; each result waits in ``_ready`` for a tick."""
        while True:
            with self._state:
                if self._next is None:
                    self._idle.set()
                    return
                cost, version = self._next
                self._next = None
            try:
                with self._customizing:
                    metric = self._fill(cost, version)
            except BaseException:
                with self._state:
                    self._next = None
                    self._idle.set()
                raise
            with self._state:
                if self._ready is not None:
                    self._free.append(self._ready)     # superseded before any tick took it
                self._ready = metric
                self.background_customizations += 1

    def adopt(self) -> bool:
        """At a tick: answer from a finished background customization if it
        is for the graph's version now (an older one is dropped: its
        successor is queued). True if the view became current."""
        with self._state:
            metric = self._ready
            if metric is None:
                return False
            self._ready = None
            if metric.version != self.graph.version or self.current:
                self._free.append(metric)
                return False
            self._swap(metric)
        return True

    @property
    def customizing(self) -> bool:
        """A background customization is queued, running or waiting for a tick."""
        return not self._idle.is_set() or self._ready is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no background customization runs (its result is
        swapped in at the next tick); False on timeout."""
        return self._idle.wait(timeout)

    @property
    def customize_seconds(self) -> float:
        return 0.0 if self.metric is None else float(self.metric.seconds)

    def stats(self) -> dict:
        t = self.topology
        out = {"nodes": t.num_nodes, "edges": t.num_edges, "arcs": t.num_arcs,
               "tree_depth": int(t.depth), "tree_levels": int(t.level_first.shape[0] - 1),
               "order_seconds": self.order_seconds, "topology_seconds": self.topology_seconds,
               "customize_seconds": self.customize_seconds,
               "recomputed_arcs": -1 if self.metric is None else int(self.metric.recomputed),
               "customizations": self.customizations, "current": self.current}
        if self.metric is not None:
            out["forward_arcs"] = int(self.metric.fwd[1].shape[0])
            out["backward_arcs"] = int(self.metric.bwd[1].shape[0])
        return out

    def query(self) -> "CCHQuery":
        """This thread's query object (its own scratch)."""
        return self.thread_local(lambda: CCHQuery(self))

    def save(self, path) -> None:
        """Write the order and the topology's fingerprint to ``path`` (an
        ``.npz`` archive, no pickles); ``load_hierarchy`` rebuilds the
        supergraph and customizes for the costs the graph has then
        (``navcore.files.write_atomic``: whole or not at all, over a regular
        file only; ``GraphError`` when it cannot be written)."""
        write_atomic(path, npz_bytes(format=np.array(FORMAT),
                                     fingerprint=np.array(self.fingerprint),
                                     order=self.topology.order), GraphError)

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<RoadCCH of {self.graph.graph_id!r}: {self.topology.num_nodes} nodes, "
                f"{self.topology.num_arcs} arcs, {state}>")


class CCHQuery:
    """Queries on one :class:`RoadCCH` with scratch of their own (one per
    thread). Node ids in, node ids and input-CSR edge positions out."""

    #: elimination-tree nodes the last :meth:`path` went through
    settled = 0

    def __init__(self, view: RoadCCH):
        self.view = view
        t = view.topology
        n = t.num_nodes
        self._n = n
        self._df = np.full(n, np.inf)
        self._db = np.full(n, np.inf)
        self._pf = np.empty(n, dtype=np.int64)
        self._pb = np.empty(n, dtype=np.int64)
        self._stack = np.empty(2 * int(t.depth) + 4, dtype=np.int64)
        self._par = None

    def _metric(self) -> Metric:
        m = self.view.metric
        if m is None:
            raise QueryError("the customizable hierarchy has not been customized yet; call "
                             "customize()")
        return m

    def _nodes(self, name, v) -> np.ndarray:
        return node_ranks(name, v, self.view.topology.rank)

    def _rows(self):
        if self._par is None:
            rows, n = _threads(), self._n
            self._par = K.PairRows(np.full((rows, n), np.inf), np.full((rows, n), np.inf),
                                   np.empty((rows, n), np.int64),
                                   np.empty((rows, n), np.int64))
        return self._par

    def distance(self, s, t) -> float:
        """The cost of a shortest path from ``s`` to ``t``; inf if none."""
        m = self._metric()
        rs, rt = end_ranks(s, t, self.view.topology.rank)
        best, _ = K.pair(self.view.topology.parent, *m.fwd[:3], *m.bwd[:3], rs, rt, self._df,
                         self._db, self._pf, self._pb)
        return float(best)

    def path(self, s, t):
        """``(cost, edges)``: a shortest path as int64 positions into the
        graph's CSR, its cost their costs summed in path order; ``(inf,
        empty)`` if there is none."""
        m = self._metric()
        topo = self.view.topology
        rs, rt = end_ranks(s, t, topo.rank)
        cost, edges, self.settled = K.path(topo.parent, *m.fwd, *m.bwd, rs, rt, self._df,
                                           self._db, self._pf, self._pb, topo.up_first,
                                           topo.up_head, topo.arc_low, m.mid_up, m.mid_down,
                                           m.src_up, m.src_down, m.cost, self._stack)
        return float(cost), edges

    def distances(self, sources, targets) -> np.ndarray:
        """Element-wise distances of pairs (inf if unreachable), both cores."""
        m = self._metric()
        s, t = self._pairs(sources, targets)
        out = np.empty(s.shape[0], dtype=np.float64)
        with kernel_threads(self.view, s.shape[0], PAIRS_PARALLEL_FROM):
            K.pair_distances(self.view.topology.parent, m.fwd, m.bwd, s, t, out, self._rows())
        return out

    def paths(self, sources, targets, expanded=None, *, parallel=None):
        """Shortest paths of every pair: ``(costs, offsets, edges)``, path
        ``i`` being ``edges[offsets[i]:offsets[i + 1]]`` (CSR positions).
        ``expanded``: an int64 array of one entry per pair that receives
        the tree nodes each pair's query went through (what :meth:`path`
        leaves in ``settled``). ``parallel``: True or False runs the
        parallel or the serial kernel whatever the pairs (warm-ups load
        both); None chooses by the pairs and the threads."""
        m = self._metric()
        topo = self.view.topology
        s, t = self._pairs(sources, targets)
        k = s.shape[0]
        offsets = np.zeros(k + 1, dtype=np.int64)
        costs = np.full(k, np.inf)
        args = (topo.parent, m.fwd, m.bwd, s, t, self._rows(), m.unpack, int(topo.depth))
        none = np.empty(0, dtype=np.int64)
        expanded = expanded_out(expanded, k)
        if parallel is None:
            parallel = threads_for(self.view, k, PAIRS_PARALLEL_FROM) > 1
        if parallel:
            with kernel_threads(self.view, k, PAIRS_PARALLEL_FROM):
                K.pair_paths(*args, offsets, none, costs, True, expanded)
                np.cumsum(offsets, out=offsets)
                edges = np.empty(offsets[-1], dtype=np.int64)
                K.pair_paths(*args, offsets, edges, costs, False, expanded)
        else:       # not even numba's thread count touched: 30 us once its pool runs
            K.pair_paths_serial(*args, offsets, none, costs, True, expanded)
            np.cumsum(offsets, out=offsets)
            edges = np.empty(offsets[-1], dtype=np.int64)
            K.pair_paths_serial(*args, offsets, edges, costs, False, expanded)
        return costs, offsets, edges

    def matrix(self, sources, targets) -> np.ndarray:
        """``(S, T)`` distances by the bucket algorithm over the elimination
        tree (the smaller side fills the buckets)."""
        m = self._metric()
        s = self._nodes("sources", sources)
        t = self._nodes("targets", targets)
        dist = self._rows()[0]
        parent, depth = self.view.topology.parent, int(self.view.topology.depth)
        with kernel_threads(self.view, s.shape[0] * t.shape[0], MATRIX_PARALLEL_FROM):
            if s.shape[0] <= t.shape[0]:
                return K.bucket_matrix(parent, *m.fwd[:3], *m.bwd[:3], s, t, dist, depth)
            res = K.bucket_matrix(parent, *m.bwd[:3], *m.fwd[:3], t, s, dist, depth)
        return np.ascontiguousarray(res.T)

    def _pairs(self, sources, targets):
        s = self._nodes("sources", sources)
        t = self._nodes("targets", targets)
        if s.shape != t.shape:
            raise QueryError(f"sources and targets must have the same length, got "
                             f"{s.shape[0]} and {t.shape[0]}")
        return s, t


# -- building, loading, the plugin's helpers -----------------------------------------

def build(graph, order=None) -> RoadCCH:
    """The customizable hierarchy of road graph ``graph`` (checked by the
    caller), customized for its costs now and stored on it. ``order``: a
    node order to use (``order[rank] = node``) instead of computing one."""
    csr = graph.csr
    t0 = time.perf_counter()
    if order is None:
        order = node_order(csr.offsets, csr.targets, graph.positions)
    t1 = time.perf_counter()
    topo = CCHTopology.build(csr.offsets, csr.targets, order)
    t2 = time.perf_counter()
    view = RoadCCH(graph, topo, topology_fingerprint(graph), t1 - t0, t2 - t1)
    view.customize()
    graph.set_view(VIEW_KEY, view)
    # its query kernels loaded here (a build is a job or a loading step),
    # so the first query in a tick loads nothing
    _warm(graph, view)
    return view


def load(graph, path, arrays) -> RoadCCH:
    """A hierarchy :meth:`RoadCCH.save` wrote (``arrays`` read from
    ``path``, format already checked), for ``graph``'s topology only (and
    under turn rules, for its edge-based graph: ``turn_cch``)."""
    if graph.turns is not None:
        from . import turn_cch
        return turn_cch.build(graph, arrays.get("order"), path,
                              str(arrays.get("fingerprint", "")))
    want = str(arrays.get("fingerprint", ""))
    order = arrays.get("order")
    if want != topology_fingerprint(graph) or order is None:
        raise GraphError(f"{path}: a node order for another road network than road graph "
                         f"{graph.graph_id!r} (its junctions or roads differ); compute one "
                         f"with contract(graph, customizable=True)")
    csr = graph.csr
    t0 = time.perf_counter()
    try:
        topo = CCHTopology.build(csr.offsets, csr.targets, order)
    except GraphError as e:
        raise GraphError(f"{path}: not a saved road hierarchy: {e}") from None
    view = RoadCCH(graph, topo, want, 0.0, time.perf_counter() - t0)
    view.customize()
    graph.set_view(VIEW_KEY, view)
    # its query kernels loaded here (a build is a job or a loading step),
    # so the first query in a tick loads nothing
    _warm(graph, view)
    return view


def current(graph) -> RoadCCH | None:
    """The graph's customizable hierarchy while it is current, else None."""
    return graph.view(VIEW_KEY)


def need_current(graph) -> RoadCCH:
    return need_view(graph, VIEW_KEY, "a customizable hierarchy not yet customized for its "
                     "latest update", "no customizable hierarchy",
                     lambda stale: "build it with navcore_roads.contract(graph, "
                                   "customizable=True)" + (" or call its customize()"
                                                           if stale else ""))


def follow(graph, world=None) -> None:
    """After an applied batch: customize again (topology kept) when the
    graph has a customizable hierarchy that follows updates, inline or as
    a job of ``world``'s scheduler (:meth:`RoadCCH.follow`)."""
    view = graph.stored_view(VIEW_KEY)
    if view is not None:
        view.follow(world)


def adopt(graph) -> None:
    """At the start of a tick: swap in a finished background customization."""
    view = graph.stored_view(VIEW_KEY)
    if view is not None and view._ready is not None:
        view.adopt()


def route(view: RoadCCH, s: int, t: int) -> PathResult:
    return hierarchy_route(view, s, t, "cch")


def warm_up(graph) -> None:
    """Load the query kernels of the graph's customizable hierarchy, if it
    has a current one (``search.warm_hierarchy``), stepped ones too."""
    view = current(graph)
    if view is not None and graph.turns is not None:
        from . import turn_cch
        turn_cch.warm(graph, view)
    elif view is not None:
        _warm(graph, view)


def _warm(graph, view) -> None:
    """Load ``view``'s query kernels: ``search.warm_hierarchy``'s and the
    stepped route's (``_cch.pair_steps`` one tree node a call, its
    unpacking, and ``reset`` for a search closed midway)."""
    warm_hierarchy(graph, view, route, "cch")
    m = view.metric
    if graph.csr.num_edges == 0 or m is None:
        return
    view._warm_partial()
    topo = view.topology
    n = topo.num_nodes
    df, db = np.full(n, np.inf), np.full(n, np.inf)
    pf, pb = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    regs, best = np.full(K.REGISTERS, -1, dtype=np.int64), np.zeros(1)
    rs, rt = end_ranks(int(graph.edge_src[0]), int(graph.csr.targets[0]), topo.rank)
    meet = K.PAUSED
    while meet == K.PAUSED:
        _, meet, _ = K.pair_steps(topo.parent, *m.fwd[:3], *m.bwd[:3], rs, rt, df, db, pf, pb,
                                  regs, best, 1)
    if meet >= 0:
        K.unpack_path(rs, rt, meet, m.fwd[3], m.bwd[3], pf, pb, topo.up_first, topo.up_head,
                      topo.arc_low, m.mid_up, m.mid_down, m.src_up, m.src_down, m.cost,
                      np.empty(2 * int(topo.depth) + 4, dtype=np.int64))
    K.reset(topo.parent, rs, rt, df, db)
