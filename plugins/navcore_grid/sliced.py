"""Grid searches a slice at a time (``navcore.Search``): A*, Dijkstra and
jump point search.

A search runs the kernel ``find_path`` runs (``_kernels.grid_astar`` or
``_jps.jump_steps``, which stop after ``budget`` expansions and carry on
from their registers) in a ``GridScratch`` of its own, taken from the
grid's pool while it runs, so its result is ``find_path``'s, path and
``expanded`` included, however it is stepped and on whatever thread.

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

from navcore.search import Search, give_back, take_slot
from navcore.types import PathRequest, PathResult, PathStatus

from . import _jps
from . import _kernels as K
from .inputs import search_inputs
from .search import GridScratch, jps_applies, jps_or_refuse, register_scratch

_POOL_KEY = "navcore_grid.slots"
#: free slots a grid keeps for later searches (a slot holds about 32 bytes
#: a cell for A*, 24 more once it ran JPS: a 1000 x 1000 grid's is 56 MB)
_POOL_SIZE = 2


class GridSearch(Search):
    """``search.astar_query``'s or ``search.jps_query``'s search, stepped;
    ``kind``: ``"astar"``, ``"dijkstra"`` or ``"jps"``."""

    def __init__(self, graph, request, kind: str, algorithm: str):
        self._kind = kind
        self._algorithm = algorithm
        self._slot = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        # (again after the grid changed under the search: costs that are
        # no longer uniform, or are again) ``auto`` searches as find_path
        # answers it now, JPS where it applies, else A*; an explicit
        # ``jps`` where it no longer applies ends as find_path's refusal
        if self.request.algorithm == "auto":
            self._kind = self._algorithm = "jps" if jps_applies(graph) else "astar"
        elif self._kind == "jps" and not jps_applies(graph):
            jps_or_refuse(graph, 0, 0)
        inputs = search_inputs(graph)
        kind = self._kind
        self._grid = inputs.jps if kind == "jps" else \
            inputs.astar if kind == "astar" else inputs.dijkstra
        size = graph.padded_free.size
        self._pool, self._slot = take_slot(graph, _POOL_KEY,
                                           lambda sc: sc.stamp.size == size,
                                           lambda: register_scratch(graph, GridScratch(graph)))
        Wp, W = graph.padded_width, graph.width
        r = self.request
        self._ends = (K.padded(r.start_node, W, Wp), K.padded(r.goal_node, W, Wp))
        self._restart_kernel()

    def _regs(self):
        return self._slot.jps()[2] if self._kind == "jps" else self._slot.pool()[6]

    def _restart_kernel(self) -> None:
        regs = self._regs()
        # R_BEST -1: no partial path before the first step (the slot's
        # last search left its own there)
        if self._kind == "jps":
            regs[_jps.R_EXPANDED], regs[_jps.R_TRACK], regs[_jps.R_BEST] = -1, 1, -1
        else:
            regs[K.R_EXPANDED], regs[K.R_TRACK], regs[K.R_BEST] = -1, 1, -1
        self._gen = self._slot.next_gen(self.graph)

    def _advance(self, budget: int):
        sl = self._slot
        s, t = self._ends
        if self._kind == "jps":
            cost, expanded, parent = _jps.jump_steps(self._grid, sl.jps(), s, t, self._gen,
                                                     budget)
            paused, links = _jps.PAUSED, _jps.JPS_LINKS
        else:
            while True:
                cost, expanded = K.grid_astar(self._grid, sl.state, sl.pool(), s, t,
                                              self._gen, budget)
                if cost != -1.0:
                    break
                sl.pool(grow=True)      # the entry pool ran out: larger, from the start
                self._restart_kernel()
            parent, paused, links = sl.parent, K.PAUSED, K.ASTAR_LINKS
        self.expanded = int(expanded)
        if cost == paused:
            return None
        if not cost < K.INF:
            return PathResult(PathStatus.UNREACHABLE, expanded=expanded,
                              algorithm=self._algorithm)
        nodes, points = K.path_to(parent, t, self.graph.padded_width, self.graph.width, links)
        return PathResult.found_path(nodes, points, cost, expanded, self._algorithm)

    def _partial(self):
        sl = self._slot
        if self._kind == "jps":
            best = int(self._regs()[_jps.R_BEST])
            parent, g, links = sl.jps()[0][1], sl.jps()[1][0], _jps.JPS_LINKS
        else:
            best = int(self._regs()[K.R_BEST])
            parent, g, links = sl.parent, sl.g, K.ASTAR_LINKS
        if best < 0:
            return None
        nodes, points = K.path_to(parent, best, self.graph.padded_width, self.graph.width,
                                  links)
        return PathResult(PathStatus.PARTIAL, nodes, points, g[best], self.expanded,
                          self._algorithm)

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        give_back(self._pool, slot, _POOL_SIZE)


def begin(world, graph, request):
    """The grid plugin's search for ``request`` as its ``navcore_find_path``
    answers it (``auto``: JPS where it applies, else A*); ``None`` for
    algorithms that are not the grid's. ``jps`` where it does not apply
    raises in the first step, as ``find_path`` raises."""
    algo = request.algorithm
    if algo == "astar":
        return GridSearch(graph, request, "astar", "astar")
    if algo == "dijkstra":
        return GridSearch(graph, request, "dijkstra", "dijkstra")
    if algo == "auto" or algo == "jps":
        if jps_applies(graph):
            return GridSearch(graph, request, "jps", "jps")
        if algo == "auto":
            return GridSearch(graph, request, "astar", "astar")
        return Search.whole(world, graph, request)
    return None


def warm_up(graph, s: int, t: int) -> None:
    """Load the stepped kernels (every kind that applies) with a search
    between neighbouring cells ``s`` and ``t`` stepped one expansion at a
    time, its partial path read on the way: a frame's first stepped search
    must not compile them."""
    kinds = ("astar", "dijkstra", "jps") if jps_applies(graph) else ("astar", "dijkstra")
    for kind in kinds:
        search = GridSearch(graph, PathRequest(graph.graph_id, s, t, kind, s, t), kind, kind)
        search.step(1)
        search.result(partial=True)
        while not search.step(1):
            pass
        search.close()
