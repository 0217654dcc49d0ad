"""Road searches a slice at a time (``navcore.Search``): ``dijkstra``,
``astar``, ``bidijkstra``, ``ch`` and ``cch`` between junctions, and
``bidijkstra`` between points.

A search runs the kernel ``find_path`` runs (``_search.astar``,
``_search.bidijkstra``, the CH's ``SteppedPath``, ``_cch.pair_steps``:
each stops after ``budget`` settled nodes and carries on from its
registers) in a slot of its own, taken from the graph's pool while it
runs, so its result is ``find_path``'s, route, cost and ``expanded``
(both directions' settled nodes; the CCH's elimination-tree nodes)
included, however it is stepped and on whatever thread.

Partial paths (``result(partial=True)``): the route to the settled node
whose chord to the goal is shortest (ties: the one settled first); for
``bidijkstra`` only the forward side's settled nodes count, since a
backward label is a route *to* the goal, not from the start. A graph
without coordinates has no chord: the partial path is the start alone.

>>> import navcore
>>> w = navcore.World()
>>> _ = w.add_graph("r", type="roads", src=[0, 1, 2, 0], dst=[1, 2, 3, 3],
...                 cost=[1.0, 1.0, 1.0, 5.0], keep="all",
...                 positions=[(24.0, 60.0), (24.001, 60.0), (24.002, 60.0),
...                            (24.003, 60.0)])
>>> s = w.begin_search("r", 0, 3, algorithm="dijkstra")
>>> s.step(2), s.result(partial=True).nodes.tolist()
(False, [0, 1])
>>> s.step(10), s.result().nodes.tolist(), s.result().cost
(True, [0, 1, 2, 3], 3.0)

Between points (phantom nodes, snapped onto their roads) ``bidijkstra``
(and ``auto`` without a hierarchy) is stepped too: the seeded search from
the start's road to the goal's, with no partial path (its labels begin at
the start road's ends, not at the point); ``dijkstra`` and ``astar``
between points (up to four searches, one per pair of road ends) run
whole in their first step. The hierarchies' searches have no partial
path either: their labels are not distances until the query ends.
"""
from __future__ import annotations

import numpy as np

from navcore.search import Search, give_back, take_slot
from navcore.types import PathRequest, PathResult, PathStatus
from navcore_csr.hierarchy import SteppedPath, end_ranks

from . import _cch as C, _search as K
from . import cch, ch, phantoms, search
from .search import RoadScratch

_POOL_KEY = "navcore_roads.slots"
_CH_POOL_KEY = "navcore_roads.ch_slots"
_CCH_POOL_KEY = "navcore_roads.cch_slots"
#: free slots a graph keeps for later searches (a slot holds two labels a
#: node and two heap entries an edge, both directions)
_POOL_SIZE = 4


class RoadSearch(Search):
    """``search.route``'s search (``algorithm``: ``"dijkstra"``,
    ``"astar"`` or ``"bidijkstra"``), stepped."""

    def __init__(self, graph, request, algorithm: str):
        self._algorithm = algorithm
        self._slot = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        # read as the graph is now (a restart after an update reads again);
        # QueryError (astar without coordinates) before a slot is taken
        self._inputs = search.search_inputs(graph, self._algorithm)
        self._take(track=True)

    def _take(self, track: bool) -> None:
        """Take a slot from the graph's pool, its registers set to begin a
        search (``track``: follow the settled node nearest the goal)."""
        graph = self.graph
        self._pool, slot = take_slot(graph, _POOL_KEY, lambda sc: sc.fits(graph),
                                     lambda: RoadScratch(graph))
        slot.regs[K.R_EXPANDED] = -1
        slot.regs[K.R_TRACK] = int(track)
        self._gen = slot.next_gen()
        self._slot = slot

    def _advance(self, budget: int):
        r = self.request
        sl = self._slot
        result = search.advance(self.graph, self._inputs, sl, r.start_node, r.goal_node,
                                self._gen, budget, self._algorithm)
        self.expanded = int(sl.regs[K.R_EXPANDED]) if result is None else result.expanded
        return result

    def _partial(self):
        sl = self._slot
        best = int(sl.regs[K.R_BEST])
        if best < 0:
            return None
        graph = self.graph
        edges = K.trace_edges(sl.par[0], graph.edge_src, best, True)
        cost = float(sl.dist[0, best])
        r = search.path_result(graph, self.request.start_node, edges, cost, self.expanded,
                               self._algorithm)
        r.status = PathStatus.PARTIAL
        return r

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        if slot is None:            # none taken: _begin refused the search
            return
        slot.regs[K.R_EXPANDED] = -1    # closed midway: the next search begins afresh
        give_back(self._pool, slot, _POOL_SIZE)


class PhantomSearch(RoadSearch):
    """``phantoms.route``'s bidirectional search between points snapped
    onto their roads (phantom nodes; one end may be a junction), stepped:
    the seeded search from the start's exits to the goal's entries, then
    the route drawn to and from the points. No partial path: the forward
    side's labels begin at the exits, not at the start point."""

    def __init__(self, graph, request):
        super().__init__(graph, request, "bidijkstra")

    def _begin(self) -> None:
        graph = self.graph
        self._ends = phantoms.Route(graph, self.request)     # snapped as the graph is now
        self._rev = graph.csr.reverse()
        self._take(track=False)

    def _advance(self, budget: int):
        sl = self._slot
        r = search.advance_seeded(self.graph, self._rev, sl, self._ends.seeds(), self._gen,
                                  budget)
        if r is None:
            self.expanded = int(sl.regs[K.R_EXPANDED])
            return None
        result = self._ends.finish("bidijkstra", r)
        self.expanded = result.expanded
        return result

    def _partial(self):
        return None


class CHSearch(Search):
    """The contraction hierarchy's route between junctions, stepped
    (``navcore_csr.hierarchy.SteppedPath``: the query ``find_path`` runs,
    its settled nodes ``expanded``). No partial path: an upward search's
    labels are not the distances of the graph. After an update the
    hierarchy is stale and the next step raises ``QueryError``, as
    ``find_path`` does, until ``contract`` builds it again."""

    def __init__(self, graph, request):
        self._slot = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        h = ch.need_current(graph).hierarchy
        self._pool, slot = take_slot(graph, _CH_POOL_KEY, lambda sp: sp.hierarchy is h,
                                     lambda: SteppedPath(h))
        slot.begin(self.request.start_node, self.request.goal_node)
        self._slot = slot

    def _advance(self, budget: int):
        if self._slot is None:      # a restart refused (stale): begin once current
            self._begin()
        sl = self._slot
        done = sl.step(budget)
        self.expanded = sl.settled
        if not done:
            return None
        if not sl.cost < float("inf"):
            return PathResult.failed(PathStatus.UNREACHABLE, "ch", sl.settled)
        return search.path_result(self.graph, self.request.start_node, sl.edges, sl.cost,
                                  sl.settled, "ch")

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        if slot is not None:
            give_back(self._pool, slot, _POOL_SIZE)


class CCHSlot(cch.CCHQuery):
    """A stepped customizable-hierarchy query's scratch: a query's labels
    (inf where no search has been), reaching edges and unpacking stack,
    and registers."""

    def __init__(self, view):
        super().__init__(view)
        self.regs = np.full(C.REGISTERS, -1, dtype=np.int64)
        self.best = np.zeros(1)

    def fits(self, topology) -> bool:
        return self._n == topology.num_nodes and \
            self._stack.shape[0] >= 2 * int(topology.depth) + 4


class CCHSearch(Search):
    """The customizable hierarchy's route between junctions, stepped
    (``_cch.pair_steps``: the elimination-tree query ``find_path`` runs,
    a budget of tree nodes a step, ``expanded`` those nodes). No partial
    path (its labels are not distances until it ends). While the
    hierarchy is not customized for the graph's latest update a step
    raises ``QueryError``, as ``find_path`` does."""

    def __init__(self, graph, request):
        self._slot = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        view = cch.need_current(graph)
        topo = view.topology
        self._topo, self._metric = topo, view.metric
        self._ranks = end_ranks(self.request.start_node, self.request.goal_node, topo.rank)
        self._pool, slot = take_slot(graph, _CCH_POOL_KEY, lambda sl: sl.fits(topo),
                                     lambda: CCHSlot(view))
        slot.regs[C.R_COUNT] = -1
        self._slot = slot

    def _advance(self, budget: int):
        if self._slot is None:      # a restart refused (not customized yet)
            self._begin()
        sl, m, topo = self._slot, self._metric, self._topo
        rs, rt = self._ranks
        best, meet, count = C.pair_steps(topo.parent, *m.fwd[:3], *m.bwd[:3], rs, rt, sl._df,
                                         sl._db, sl._pf, sl._pb, sl.regs, sl.best, budget)
        self.expanded = int(count)
        if meet == C.PAUSED:
            return None
        if meet < 0:
            return PathResult.failed(PathStatus.UNREACHABLE, "cch", self.expanded)
        cost, edges = C.unpack_path(rs, rt, meet, m.fwd[3], m.bwd[3], sl._pf, sl._pb,
                                    topo.up_first, topo.up_head, topo.arc_low, m.mid_up,
                                    m.mid_down, m.src_up, m.src_down, m.cost, sl._stack)
        return search.path_result(self.graph, self.request.start_node, edges, cost,
                                  self.expanded, "cch")

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        if slot is None:
            return
        if slot.regs[C.R_COUNT] >= 0:          # stopped midway: labels back to inf
            C.reset(self._topo.parent, *self._ranks, slot._df, slot._db)
            slot.regs[C.R_COUNT] = -1
        give_back(self._pool, slot, _POOL_SIZE)


def begin(graph, request, algorithm: str, junctions: bool):
    """The roads plugin's search of ``algorithm`` (``search.ALGORITHMS``,
    ``"ch"`` or ``"cch"``) for ``request``, stepped: between junctions any of them,
    between points (``junctions`` False) ``bidijkstra``; ``None`` for one
    that runs whole."""
    if junctions:
        if algorithm == "ch":
            return CHSearch(graph, request)
        if algorithm == "cch":
            return CCHSearch(graph, request)
        return RoadSearch(graph, request, algorithm)
    if algorithm == "bidijkstra":
        return PhantomSearch(graph, request)
    return None


def warm_up(graph) -> None:
    """Load the stepped kernels: a search of every algorithm between the
    ends of the graph's first road, stepped one node at a time, its
    partial path read on the way."""
    if graph.csr.num_edges == 0:
        return
    s, t = int(graph.edge_src[0]), int(graph.csr.targets[0])
    for algorithm in search.ALGORITHMS:
        if algorithm == "astar" and graph.unit is None:
            continue
        rs = RoadSearch(graph, PathRequest(graph.graph_id, s, t, algorithm, s, t), algorithm)
        rs.step(1)
        rs.result(partial=True)
        while not rs.step(1):
            pass
        rs.close()
