"""Contraction hierarchies of road graphs: ``contract(graph)``
builds one, after which ``algorithm="ch"`` and ``"auto"`` routes,
``distance_pairs`` and ``distance_matrix`` (the bucket many-to-many
algorithm, on both cores) answer from it.

The hierarchy (``hierarchy.DirectedHierarchy``: one-way streets, parallel
roads) is a derived view of the graph (``navcore.views``) built for the
costs as they are: any update makes it stale, and a stale hierarchy is
never used (``auto`` falls back to bidirectional Dijkstra, ``ch`` is a
``QueryError``) until ``contract`` builds it again. A game that must not
stall a frame rebuilds it as a scheduler job::

    job = world.scheduler.schedule(navcore_roads.contract, world.graph("city"))

(with ``World(workers=0)`` jobs run inline). An update applied while it
builds leaves it stale at once, never wrong.

Blocked junctions (``walkable=False``) are left out of the build, so a
current hierarchy answers exactly as the searches do. ``save`` writes one
to ``.npz`` (no pickles) with a fingerprint of the graph's topology and
costs; ``load_hierarchy`` refuses it for any other graph.

>>> import navcore, navcore_roads
>>> w = navcore.World()
>>> g = w.add_graph("r", type="roads", src=[0, 1, 2], dst=[1, 2, 0],
...                 length=[100.0, 100.0, 100.0], speed=36.0)
>>> h = navcore_roads.contract(g)
>>> r = w.find_path("r", 0, 2)
>>> r.algorithm, r.nodes.tolist(), r.cost
('ch', [0, 1, 2], 20.0)
>>> w.update("r", edges=[(1, 2)], cost=float("inf")); _ = w.tick()
>>> w.find_path("r", 0, 2).algorithm, h.current
('bidijkstra', False)
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

from navcore import validate
from navcore.errors import GraphError, QueryError
from navcore.files import npz_bytes, read_npz, verify, write_atomic
from navcore.types import PathResult
from navcore.views import DerivedView

from navcore_csr import DirectedHierarchy
from navcore_csr.contraction import hierarchy_inputs
from navcore_csr.hierarchy import WITNESS_LIMIT, HierarchyQuery, SteppedPath, check_ends
from .search import hierarchy_route, warm_hierarchy

VIEW_KEY = "navcore_roads.ch"
_FORMAT = "navcore-road-ch-1"
#: seconds a build runs before it shows progress
PROGRESS_AFTER = 1.0


class RoadHierarchy(DerivedView):
    """The contraction hierarchy of one road graph at one version."""

    def __init__(self, graph, hierarchy: DirectedHierarchy, fingerprint: str):
        super().__init__(graph)
        self._adopt(hierarchy, fingerprint)

    def _adopt(self, hierarchy: DirectedHierarchy, fingerprint: str) -> None:
        self.hierarchy = hierarchy
        self.fingerprint = fingerprint
        graph = self.graph
        # how a route's road is drawn, checked once: positions and shapes
        # never change with updates (a new version gets a new hierarchy)
        self._drawing = None if graph.chain_xy is None else hierarchy.drawing(
            graph.csr.targets, graph.chain_start, graph.chain_xy, graph.positions)

    def route(self, s, t) -> PathResult:
        """The route from junction ``s`` to junction ``t`` (``QueryError``
        for ids that are not junctions) with its drawn road: searched,
        unpacked and drawn in one kernel call (``HierarchyQuery.drawn_result``)."""
        drawing = self._drawing
        if drawing is None:                    # no coordinates: nothing to draw
            return hierarchy_route(self, s, t, "ch")
        q = getattr(self._tls, "state", None) or self.query()     # this thread's query
        return q.drawn_result(s, t, drawing)

    @property
    def num_shortcuts(self) -> int:
        return int(self.hierarchy.stats().get("shortcuts", 0))

    @property
    def build_seconds(self) -> float:
        return float(self.hierarchy.build_seconds)

    def stats(self) -> dict:
        return {**self.hierarchy.stats(), "current": self.current}

    def query(self):
        """This thread's query object (its own scratch)."""
        return self.thread_local(lambda: HierarchyQuery(self.hierarchy, self.graph, view=self))

    def save(self, path) -> None:
        """Write the hierarchy to ``path`` as it is named (an ``.npz``
        archive, no pickles; ``navcore.files.write_atomic``: whole or not
        at all, over a regular file only; ``GraphError`` when it cannot be
        written)."""
        write_atomic(path, npz_bytes(format=np.array(_FORMAT),
                                     fingerprint=np.array(self.fingerprint),
                                     **self.hierarchy.arrays()), GraphError)

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<RoadHierarchy of {self.graph.graph_id!r}: {self.graph.num_nodes} nodes, "
                f"{self.num_shortcuts} shortcuts, {state}>")


def effective_costs(graph) -> np.ndarray:
    """Edge costs with the edges of blocked junctions closed (a copy, read
    with ``NavGraph.read_consistent`` as every hierarchy's inputs are:
    ``navcore_csr.contraction.hierarchy_inputs``)."""
    return hierarchy_inputs(graph)[2]


def fingerprint(graph, cost) -> str:
    csr = graph.csr
    h = hashlib.sha1()
    for a in (np.array([graph.num_nodes]), csr.offsets, csr.targets, cost):
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return h.hexdigest()


def contract(graph, *, progress=None, witness_limit: int = WITNESS_LIMIT,
             customizable: bool = False, order=None):
    """Build the contraction hierarchy of road graph ``graph`` for its
    costs now, store it on the graph and return it. ``progress``: a
    callable ``(done, total)``, True (a bar on standard error once the
    build has run a second), False, or None (that bar on a terminal only).

    ``customizable=True`` builds the customizable hierarchy instead
    (``navcore_roads.cch.RoadCCH``: a metric-independent node order and
    supergraph, customized for the costs now and again after every batch
    of updates, so it stays current under live traffic); ``order`` gives
    it a node order (``order[rank] = node``) instead of computing one.

    On a graph with turn rules both are built over its edge-based graph
    (``turns.TurnHierarchy``, ``turn_cch.TurnCCH``).
    """
    graph = validate.graph(graph, error=GraphError)
    _check_road_graph(graph)
    if not isinstance(customizable, (bool, np.bool_)):
        raise GraphError(f"customizable must be True or False, got {customizable!r}")
    if customizable and graph.turns is not None:
        if order is not None:
            raise GraphError(f"order= is a junction order, and road graph "
                             f"{graph.graph_id!r} has turn rules "
                             f"({graph.turns.num_rules}): its customizable hierarchy is "
                             f"over its road edges and orders them itself")
        from . import turn_cch
        return turn_cch.build(graph)
    if customizable:
        from . import cch
        return cch.build(graph, order)
    if order is not None:
        raise GraphError("order= is a node order for contract(graph, customizable=True); a "
                         "plain contraction hierarchy orders its nodes itself")
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise GraphError(f"progress must be None, True, False or a callable(done, total), "
                         f"got {progress!r}")
    if graph.turns is not None:           # the hierarchy of the edge-based graph
        from . import turns
        with _Progress(progress, graph) as report:
            return turns.contract(graph, report)
    view = RoadHierarchy.__new__(RoadHierarchy)
    DerivedView.__init__(view, graph)             # the version first: updates from here on
    offsets, targets, cost = hierarchy_inputs(graph)    # leave this hierarchy stale
    with _Progress(progress, graph) as report:
        h = DirectedHierarchy.build(offsets, targets, cost,
                                    witness_limit=witness_limit, progress=report,
                                    threads=graph)
    view._adopt(h, fingerprint(graph, cost))
    graph.set_view(VIEW_KEY, view)
    _warm(graph, view)                      # the first query in a tick loads nothing
    return view


def load_hierarchy(graph, path):
    """Load a hierarchy ``save`` wrote into ``graph``; ``GraphError`` when
    the file is not one, or was built for another graph or other costs.
    A customizable one (``RoadCCH.save``: its node order) loads into any
    graph of the same topology and is customized for its costs now."""
    graph = validate.graph(graph, error=GraphError)
    _check_road_graph(graph)
    if not isinstance(path, (str, os.PathLike)):
        raise GraphError(f"load_hierarchy needs a file path, got {path!r}")
    path = Path(path)

    def fail(message):
        raise GraphError(f"{path}: not a saved road hierarchy: {message}")
    arrays = read_npz(path, fail)
    kind = str(arrays.get("format", ""))
    from . import cch
    if kind not in (_FORMAT, cch.FORMAT):
        raise GraphError(f"{path}: not a saved road hierarchy (format {_FORMAT} or "
                         f"{cch.FORMAT} expected)")
    arrays = verify(arrays, fail)
    del arrays["format"]
    if kind == cch.FORMAT:
        return cch.load(graph, path, arrays)
    want = str(arrays.pop("fingerprint", ""))
    cost = effective_costs(graph)
    # the stored fingerprint says which graph it was saved for; the arrays
    # themselves must agree (a file can be edited): as many nodes, and the
    # very edge costs the graph has now
    rank, weights = arrays.get("rank"), arrays.get("weights")
    if want != fingerprint(graph, cost) or rank is None or weights is None \
            or rank.shape != (graph.num_nodes,) or weights.shape != cost.shape \
            or not np.array_equal(weights, cost):
        raise GraphError(f"{path}: built for another graph or other costs than road graph "
                         f"{graph.graph_id!r} has now; build it again with contract()")
    try:
        hierarchy = DirectedHierarchy.from_arrays(arrays)
    except GraphError as e:
        raise GraphError(f"{path}: not a saved road hierarchy: {e}") from None
    check_ends(arrays, graph.csr.offsets, graph.csr.targets, fail)
    view = RoadHierarchy(graph, hierarchy, want)
    graph.set_view(VIEW_KEY, view)
    _warm(graph, view)
    return view


def current(graph) -> RoadHierarchy | None:
    """The graph's hierarchy while it is current, else None."""
    return graph.view(VIEW_KEY)


def need_current(graph) -> RoadHierarchy:
    return need_view(graph, VIEW_KEY, "a stale contraction hierarchy (the graph changed "
                     "since it was built)", "no contraction hierarchy",
                     "build it with navcore_roads.contract(graph)")


def need_view(graph, key, stale, missing, how):
    """The graph's current view ``key``, else a ``QueryError`` saying it
    has ``stale`` (a view no longer current) or ``missing`` (none), and
    ``how`` to build it (a callable of whether it is stale, or a text)."""
    view = graph.view(key)
    if view is not None:
        return view
    is_stale = graph.stored_view(key) is not None
    advice = how(is_stale) if callable(how) else how
    raise QueryError(f"road graph {graph.graph_id!r} has {stale if is_stale else missing}; "
                     f"{advice}")


def route(view: RoadHierarchy, s: int, t: int) -> PathResult:
    return view.route(s, t)


def _check_road_graph(graph) -> None:
    from .network import RoadGraph
    if not isinstance(graph, RoadGraph):
        raise GraphError(f"contract takes a road graph (type: roads), got {graph!r}")


class _Progress:
    """The ``progress`` argument of ``contract`` as a callable for the
    build, with a tqdm bar that appears once the build has run a second."""

    def __init__(self, progress, graph):
        self.user = progress if callable(progress) else None
        self.bar_allowed = progress is True or (progress is None and sys.stderr.isatty())
        self.graph = graph
        self.bar = None
        self.t0 = time.perf_counter()

    def __enter__(self):
        return self if (self.user or self.bar_allowed) else None

    def __call__(self, done, total):
        if self.user is not None:
            self.user(done, total)
        if self.bar_allowed:
            if self.bar is None and time.perf_counter() - self.t0 > PROGRESS_AFTER:
                from tqdm import tqdm
                self.bar = tqdm(total=total, unit="node", file=sys.stderr,
                                desc=f"contracting {self.graph.graph_id!r}")
            if self.bar is not None:
                self.bar.n = done
                self.bar.refresh()

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()
        return False


def warm_up(graph) -> None:
    """Load the query kernels of the graph's contraction hierarchy, if it
    has a current one (``search.warm_hierarchy``), stepped ones too."""
    view = current(graph)
    if view is not None:
        _warm(graph, view)


#: the kinds of hierarchy (drawn routes or not) whose query kernels this
#: process has loaded (``_warm``)
_LOADED: set = set()


def _warm(graph, view) -> None:
    """Load ``view``'s query kernels: ``search.warm_hierarchy``'s and the
    stepped route's (``SteppedPath``, one node a step). Once per process
    for each kind of hierarchy: every hierarchy hands the kernels arrays
    of the same dtypes and layout, so a second warm-up loads nothing: it
    cost a build 0.6-0.8 ms (Monaco's 9.7 ms, Helsinki's 6.2 ms)."""
    kind = view._drawing is None
    if kind in _LOADED or not graph.csr.num_edges:
        return
    warm_hierarchy(graph, view, route, "ch")
    sp = SteppedPath(view.hierarchy)
    sp.begin(int(graph.edge_src[0]), int(graph.csr.targets[0]))
    while not sp.step(1):
        pass
    _LOADED.add(kind)
