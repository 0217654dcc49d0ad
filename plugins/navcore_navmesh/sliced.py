"""Navmesh searches a slice at a time (``navcore.Search``): ``polyanya``
(what ``auto``, ``astar`` and ``dijkstra`` mean on a navmesh), the
``funnel`` and the polygon-graph searches.

A Polyanya search runs the kernel ``find_path`` runs (``_polyanya.search``,
which closes at most its budget of search nodes a call and carries on
from its registers) in a ``polyanya.Scratch`` of its own, taken from the
mesh's pool while it runs, so any number of searches can be under way and
each ends with ``find_path``'s result (path, cost, ``expanded``). The
funnel steps the csr plugin's A* over the polygon graph
(``navcore_csr.begin_astar``, ``find_path``'s corridor search) and pulls
the string once the corridor is found. A re-tiled mesh (any update: a new
``graph.version``) begins the search again on the new mesh.

A search not finished yet answers ``result(partial=True)`` with a path to
the search node closed so far that lies nearest the goal by the
heuristic: Polyanya's from the start through its turns to that node's
interval, then into the polygon beyond it, ending at its centroid; the
funnel's pulled taut along the corridor to the centroid of the polygon A*
closed nearest the goal.

>>> import navcore
>>> w = navcore.World()
>>> _ = w.add_graph("room", type="navmesh", bounds=(0, 0, 10, 10),
...                 obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
>>> s = w.begin_search("room", (1, 1), (9, 1), algorithm="polyanya")
>>> s.step(1), s.result(partial=True).status.value
(False, 'partial')
>>> while not s.step(1):
...     pass
>>> s.result().points.tolist()
[[1.0, 1.0], [4.0, 8.0], [6.0, 8.0], [9.0, 1.0]]
>>> s.result().expanded == w.find_path("room", (1, 1), (9, 1)).expanded
True
"""
from __future__ import annotations

import numpy as np

import navcore_csr
from navcore.search import Search, give_back, take_slot
from navcore.types import PathRequest, PathResult, PathStatus

from . import _polyanya as K
from . import funnel, polyanya, polygon_search

_POOL_KEY = "navcore_navmesh.slots"
#: free slots a mesh keeps for later searches (a slot holds about 40
#: bytes a vertex and polygon, and its node pool: 1024 nodes at first)
_POOL_SIZE = 4


class PolyanyaSearch(Search):
    """``polyanya.polyanya_path``'s search, stepped."""

    def __init__(self, graph, request, space=None):
        self._slot = None
        self._filtered = space
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        # an area filter's space (``areafilter``), else the graph's own
        space = self._space = self._filtered or polyanya.search_space(graph)
        self._walkable = graph.walkable if self._filtered is None else space.walkable
        self._pool, slot = take_slot(graph, _POOL_KEY, lambda sc: sc.fits(space),
                                     lambda: polyanya.Scratch(space))
        slot.regs[K.R_EXPANDED] = -1                 # begin anew
        slot.regs[K.R_BEST] = -1                     # no partial path yet
        slot.regs[K.R_TRACK] = 1                     # keep the node for partial
        self._slot = slot
        self._ends = polyanya.query_ends(graph, self.request)
        self._snapped = False

    def _advance(self, budget: int):
        graph, space, sl = self.graph, self._space, self._slot
        while True:
            sl.regs[K.R_BUDGET] = min(budget, K.WHOLE)
            sx, sy, gx, gy, s_seed, g_seed = self._ends
            status, points, polygons, length, expanded = K.search(
                *space.before_walkable, self._walkable, *space.after_walkable,
                sx, sy, s_seed, gx, gy, g_seed, *sl.args)
            self.expanded = int(expanded)
            if status == K.PAUSED:
                return None
            if status == K.FOUND:
                return PathResult.found_path(polygons, points, length, expanded,
                                             polyanya.ALGORITHM)
            if status == K.OUT_OF_NODES:
                # the node pool ran out: a larger one, the search from the
                # start (as find_path does)
                sl.grow(2 * len(sl.hid))
                continue
            if status in (K.START_OFF_MESH, K.GOAL_OFF_MESH) and not self._snapped:
                # an end slightly off the mesh: from its nearest point, as
                # find_path does (no node was closed yet)
                self._snapped = True
                moved = polyanya.snapped_ends(graph, sx, sy, gx, gy)
                if moved is not None:
                    self._ends = moved
                    continue
            return polyanya.failed(status, expanded)

    def finish_free(self) -> bool:
        """Carry on without closing a search node (the kernel with a
        budget of none): True when that finished the search, as it does
        when one polygon holds both ends or the start's polygon leads
        nowhere; what a caller with no expansions left may still run."""
        if self._result is not None:
            return True
        result = self._advance(0)
        if result is None:
            return False
        self._finish(result)
        return True

    def _partial(self):
        sl, graph = self._slot, self.graph
        sx, sy, gx, gy = self._ends[:4]
        points, polygons, length = K.partial(graph.vertices, sl.nf, sl.ni, sl.work,
                                             sx, sy, gx, gy)
        if not polygons.size:
            return None
        return _to_centroid(graph, polygons, points, length, self.expanded,
                            polyanya.ALGORITHM)

    def _release(self) -> None:
        slot, self._slot = self._slot, None
        give_back(self._pool, slot, _POOL_SIZE)


class FunnelSearch(Search):
    """``funnel.funnel_path``'s search, stepped: the corridor A* a slice at
    a time, then the string pulled in the step that finishes it."""

    def __init__(self, graph, request, over=None):
        self._corridor = None
        self._over = over
        super().__init__(graph, request)

    def _begin(self) -> None:
        # the corridor over an area filter's polygon graph, else the mesh's
        self._corridor = navcore_csr.begin_astar(self._over or self.graph, self.request,
                                                 "euclidean", funnel.ALGORITHM)

    def _ends(self):
        r, graph = self.request, self.graph
        return (funnel._end_point(graph, r.start, r.start_node),
                funnel._end_point(graph, r.goal, r.goal_node))

    def _advance(self, budget: int):
        corridor = self._corridor
        done = corridor.step(budget)
        self.expanded = corridor.expanded
        if not done:
            return None
        found = corridor.result()
        if found.status is not PathStatus.FOUND:
            return found
        start, goal = self._ends()
        return funnel._pull(self.graph, found.nodes, start, goal, found.expanded)

    def _partial(self):
        part = self._corridor.result(partial=True)
        if part.status is not PathStatus.PARTIAL:
            return None
        graph, nodes = self.graph, part.nodes
        start = self._ends()[0]
        pulled = funnel._pull(graph, nodes, start, graph.positions[nodes[-1]],
                                   self.expanded)
        return PathResult(PathStatus.PARTIAL, pulled.nodes, pulled.points, pulled.cost,
                          self.expanded, funnel.ALGORITHM)

    def _release(self) -> None:
        corridor, self._corridor = self._corridor, None
        if corridor is not None:
            corridor.close()


def _to_centroid(graph, polygons, points, length, expanded, algorithm) -> PathResult:
    """A partial result along ``points`` (ending on the border of the last
    of ``polygons``, which it then enters) carried on to that polygon's
    centroid: inside it, so the path's last point locates to its last
    polygon (the polygon is convex: the last leg stays in it)."""
    c = np.asarray(graph.positions[polygons[-1]], dtype=np.float64)[:2]
    last = points[-1]
    if c[0] != last[0] or c[1] != last[1]:
        points = np.vstack([points, c[None, :]])
        length += float(np.hypot(c[0] - last[0], c[1] - last[1]))
    return PathResult(PathStatus.PARTIAL, polygons, points, length, expanded, algorithm)


def begin(world, graph, request, area_filter=None):
    """The navmesh plugin's search for ``request`` as its
    ``navcore_find_path`` answers it: Polyanya (``auto``, ``polyanya``,
    ``astar``, ``dijkstra``), the funnel and the polygon-graph searches
    stepped; the names it refuses raise the same ``QueryError``.
    ``area_filter``: the query's ``areafilter.AreaFilter`` (its ends
    already checked against it)."""
    algo = request.algorithm
    f = area_filter
    if algo in polyanya.NAMES:
        if f is None:
            return PolyanyaSearch(graph, request)
        f.check_exact(request)
        return PolyanyaSearch(graph, request, f.space())
    if algo == funnel.ALGORITHM:
        return FunnelSearch(graph, request, None if f is None else f.polygon_graph())
    over = graph if f is None else f.polygon_graph()
    if algo == "polygon_astar":
        return navcore_csr.begin_astar(over, request, request.options.get("heuristic"),
                                       algo)
    if algo == "polygon_dijkstra":
        return navcore_csr.begin_astar(over, request, "zero", algo)
    if algo in polygon_search.REFUSED:
        polygon_search.refuse(graph, request)
    # another plugin's algorithm on a navmesh: find_path's hooks answer it,
    # so its search runs whole in the first step
    return Search.whole(world, graph, request)


def warm_up(graph) -> None:
    """Load the stepped kernels now (``navcore_warm_up``): a Polyanya search
    and a funnel search between neighbouring polygons, paused after one
    node and carried on, their partial paths read before and on the way:
    a frame's first stepped search must not compile them."""
    walk = np.flatnonzero((np.diff(graph.poly_start) > 0) & graph.walkable)
    if walk.size == 0:
        return
    s = t = int(walk[0])
    row = graph.poly_adj[graph.poly_start[s]:graph.poly_start[s + 1]]
    near = row[(row >= 0)]
    near = near[graph.walkable[near]] if near.size else near
    if near.size:
        t = int(near[0])
    for make, algo in ((PolyanyaSearch, polyanya.ALGORITHM), (FunnelSearch, funnel.ALGORITHM)):
        search = make(graph, PathRequest(graph.graph_id, s, t, algo, s, t))
        search.result(partial=True)
        search.step(1)
        search.result(partial=True)
        search.step()
        search.close()
