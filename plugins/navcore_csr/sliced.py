"""The generic A* and Dijkstra a slice at a time (``navcore.Search``).

Each search keeps its labels, heap and registers in a slot of its own
(a ``SearchScratch``, the memory one thread's whole searches use), taken
from the graph's pool when it begins and given back when it ends, so any
number of searches can be under way and step on any thread. Steps run
the same kernel as ``find_path`` (``_search.astar``, which stops after
``budget`` expansions and carries on from its registers), so the result
is the same, path and ``expanded`` included.

>>> import navcore
>>> w = navcore.World()
>>> _ = w.add_graph("g", type="csr", src=[0, 1, 2, 0], dst=[1, 2, 3, 3],
...                 cost=[1.0, 1.0, 1.0, 5.0])
>>> s = w.begin_search("g", 0, 3, algorithm="dijkstra")
>>> s.step(2), s.result(partial=True).nodes.tolist()
(False, [0])
>>> s.step(10), s.result().nodes.tolist(), s.result().cost
(True, [0, 1, 2, 3], 3.0)
"""
from __future__ import annotations

from navcore import validate
from navcore.errors import QueryError
from navcore.search import Search, give_back, take_slot
from navcore.types import PathRequest, PathResult, PathStatus

from . import _search as K
from . import search

_POOL_KEY = "navcore_csr.slots"
#: free slots a graph keeps for later searches (each holds seven arrays
#: of its node count)
_POOL_SIZE = 4


class CsrSearch(Search):
    """``search.run_astar``'s search, stepped (``heuristic`` checked)."""

    def __init__(self, graph, request, heuristic: str, algorithm: str):
        self._heuristic = heuristic
        self._algorithm = algorithm
        self._slot = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        self._csr = graph.csr
        self._h = search.heuristic_inputs(graph, self._heuristic)
        n = graph.num_nodes
        self._pool, slot = take_slot(graph, _POOL_KEY, lambda sc: sc.g.size == max(n, 1),
                                     lambda: search.SearchScratch(n))
        slot.regs[K.R_EXPANDED] = -1
        slot.regs[K.R_TRACK] = 1
        slot.regs[K.R_BEST] = -1     # no partial path before the first step
        self._gen = slot.next_gen()
        self._slot = slot

    def _advance(self, budget: int):
        sl, csr = self._slot, self._csr
        pos, hkind, scale = self._h
        r = self.request
        cost, expanded = K.astar(csr.offsets, csr.targets, csr.cost, self.graph.walkable,
                                 pos, hkind, scale, r.start_node, r.goal_node, sl.g,
                                 sl.parent, sl.stamp, sl.hnode, sl.hkey, sl.hpos, self._gen,
                                 sl.regs, budget)
        self.expanded = int(expanded)
        if cost == K.PAUSED:
            return None
        return search.result_of(self.graph, sl, r.goal_node, cost, expanded,
                                self._algorithm)

    def _partial(self):
        sl = self._slot
        best = int(sl.regs[K.R_BEST])
        if best < 0:
            return None
        nodes = K.trace(sl.parent, best)
        return PathResult(PathStatus.PARTIAL, nodes, search.points_along(self.graph, nodes),
                          sl.g[best], self.expanded, self._algorithm)

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        give_back(self._pool, slot, _POOL_SIZE)


def begin(graph, request):
    """The csr plugin's search for ``request`` as ``navcore_find_path``
    would answer it: A* and Dijkstra stepped, other algorithms whole
    (``None``: the caller makes that)."""
    algo = request.algorithm
    if algo == "auto" or algo == "astar":
        h = request.options.get("heuristic", graph.heuristic)
        search.check_heuristic(graph, h)
        return CsrSearch(graph, request, h, "astar" if h != "zero" else "dijkstra")
    if algo == "dijkstra":
        return CsrSearch(graph, request, "zero", "dijkstra")
    return None


def begin_astar(graph, request, heuristic=None, algorithm: str = "astar") -> CsrSearch:
    """``astar(graph, s, t, heuristic=, algorithm=)``'s search stepped, for
    another plugin's graphs over this CSR storage (a navmesh's polygon
    graph): ``request``'s ends are checked node ids; ``heuristic`` (None:
    the graph's) is checked here, a ``QueryError`` as ``astar`` raises."""
    graph = validate.graph(graph)
    if not isinstance(request, PathRequest):
        raise QueryError(f"begin_astar: request must be a navcore.PathRequest, got "
                         f"{request!r}")
    for what, node in (("start", request.start_node), ("goal", request.goal_node)):
        validate.node_id(node, graph.num_nodes, f"begin_astar: the request's {what} node")
    if type(algorithm) is not str:
        raise QueryError(f"begin_astar: algorithm must be a name (str), got {algorithm!r}")
    heuristic = graph.heuristic if heuristic is None else heuristic
    search.check_heuristic(graph, heuristic)
    return CsrSearch(graph, request, heuristic, algorithm)


def warm_up(graph, s: int, t: int, heuristic: str) -> None:
    """Load the stepped kernel with a search from ``s`` to ``t`` stepped one
    expansion at a time, its partial path read on the way."""
    search = CsrSearch(graph, PathRequest(graph.graph_id, s, t, "astar", s, t), heuristic,
                       "astar")
    search.step(1)
    search.result(partial=True)
    while not search.step(1):
        pass
    search.close()
