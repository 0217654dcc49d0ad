"""Grid A* and Dijkstra a slice at a time (``navcore.Search``).

A search runs the kernel ``find_path`` runs (``_kernels.grid_astar``,
which stops after ``budget`` expansions and carries on from its
registers) in a ``GridScratch`` of its own, taken from the grid's pool
while it runs, so its result is ``find_path``'s, path and ``expanded``
included, however it is stepped and on whatever thread.

>>> import navcore
>>> w = navcore.World()
>>> _ = w.add_graph("g", type="grid", rows=["......", ".####.", "......"])
>>> s = w.begin_search("g", 0, 17, algorithm="astar")
>>> s.step(3), s.result(partial=True).status.value
(False, 'partial')
>>> s.step(100), s.result().cost == w.find_path("g", 0, 17, algorithm="astar").cost
(True, True)
"""
from __future__ import annotations

from navcore.search import Search
from navcore.types import PathResult, PathStatus

from . import _kernels as K
from .inputs import search_inputs
from .search import GridScratch, jps_applies, register_scratch

_POOL_KEY = "navcore_grid.slots"
#: free slots a grid keeps for later searches (a slot holds about 32 bytes
#: a cell: a 1000 x 1000 grid's is 32 MB)
_POOL_SIZE = 2


class GridSearch(Search):
    """``search.astar_query``'s search, stepped."""

    def __init__(self, graph, request, heuristic: bool, algorithm: str):
        self._heuristic = heuristic
        self._algorithm = algorithm
        self._slot = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        inputs = search_inputs(graph)
        self._grid = inputs.astar if self._heuristic else inputs.dijkstra
        pool = self._pool = graph.scratch(_POOL_KEY, _new_pool)
        while pool and pool[-1].stamp.size != graph.padded_free.size:
            pool.pop()
        self._slot = pool.pop() if pool else register_scratch(graph, GridScratch(graph))
        Wp, W = graph.padded_width, graph.width
        r = self.request
        self._ends = (K.padded(r.start_node, W, Wp), K.padded(r.goal_node, W, Wp))
        self._restart_kernel()

    def _restart_kernel(self) -> None:
        regs = self._slot.pool()[6]
        regs[K.R_EXPANDED] = -1
        regs[K.R_TRACK] = 1
        self._gen = self._slot.next_gen(self.graph)

    def _advance(self, budget: int):
        sl = self._slot
        s, t = self._ends
        while True:
            cost, expanded = K.grid_astar(self._grid, sl.state, sl.pool(), s, t, self._gen,
                                          budget)
            if cost != -1.0:
                break
            sl.pool(grow=True)          # the entry pool ran out: larger, from the start
            self._restart_kernel()
        self.expanded = int(expanded)
        if cost == K.PAUSED:
            return None
        if not cost < K.INF:
            return PathResult(PathStatus.UNREACHABLE, expanded=expanded,
                              algorithm=self._algorithm)
        nodes, points = K.path_to(sl.parent, t, self.graph.padded_width, self.graph.width)
        return PathResult.found_path(nodes, points, cost, expanded, self._algorithm)

    def _partial(self):
        sl = self._slot
        best = int(sl.pool()[6][K.R_BEST])
        if best < 0:
            return None
        nodes, points = K.path_to(sl.parent, best, self.graph.padded_width, self.graph.width)
        return PathResult(PathStatus.PARTIAL, nodes, points, sl.g[best], self.expanded,
                          self._algorithm)

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        if slot is not None and len(self._pool) < _POOL_SIZE:
            slot.pool()[6][K.R_EXPANDED] = -1
            self._pool.append(slot)


def _new_pool(graph) -> list:
    return []


def begin(world, graph, request):
    """The grid plugin's search for ``request`` as its ``navcore_find_path``
    answers it: A* and Dijkstra stepped; JPS (``auto`` where it applies)
    whole; ``None`` for algorithms that are not the grid's."""
    algo = request.algorithm
    if algo == "astar":
        return GridSearch(graph, request, True, "astar")
    if algo == "dijkstra":
        return GridSearch(graph, request, False, "dijkstra")
    if algo == "auto" and not jps_applies(graph):
        return GridSearch(graph, request, True, "astar")
    if algo == "auto" or algo == "jps":
        return Search.whole(world, graph, request)
    return None
