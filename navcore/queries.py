"""The queries of ``World`` (paths, reachability, areas, distances): each
checks its arguments, makes node ids of the ends (``navcore.ends``) and
asks its hook through ``_ask``, the one place that calls query hooks and
says when no plugin answered."""
from __future__ import annotations

import numpy as np

from . import ends, limits, validate
from .errors import NodeError, QueryError
from .graph import NavGraph
from .search import Search
from .types import (GraphVersion, MeshPoint, PathRequest, PathResult, PathStatus, RaycastHit,
                    SearchIntervals)

_INVALID_START = PathStatus.INVALID_START
_INVALID_GOAL = PathStatus.INVALID_GOAL


def _refused(graph, status) -> PathResult:
    """An ``invalid_start`` / ``invalid_goal`` result, of the graph as it
    is now (a new object per query: each carries its own version)."""
    return PathResult(status, version=graph.stamp())


_FOUND = PathStatus.FOUND
#: what a QueryError adds when a hook that a plugin answers goes unanswered
_HINTS = {"navcore_areas": " (is the areas plugin loaded?)",
          "navcore_nearest_reachable": " (is the areas plugin loaded?)"}


def _rng(rng) -> np.random.Generator:
    """``random_point``'s ``rng``: a Generator as given, a seed made one."""
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if validate.is_int(rng) and not isinstance(rng, (bool, np.bool_)) and int(rng) >= 0:
        return np.random.default_rng(int(rng))
    raise QueryError(f"rng must be None, a non-negative int seed or a numpy.random.Generator, "
                     f"got {validate.describe(rng)}")


class Queries:
    """``World``'s query methods (``World`` is the class to use)."""

    def algorithms(self, graph_id) -> list:
        """The ``algorithm=`` names that some plugin answers for this graph."""
        graph = self.graph(graph_id)
        return sorted(self._algorithms(graph))

    def find_path(self, graph_id, start, goal, algorithm: str = "auto", *,
                  max_nodes: int | None = None, partial: bool = False,
                  **options) -> PathResult:
        """Shortest path from ``start`` to ``goal`` (node ids or points).

        Returns a ``PathResult``; a start or goal outside the graph or not
        walkable gives ``invalid_start`` / ``invalid_goal``, no path gives
        ``unreachable``. With ``max_nodes`` the search stops after that
        many expansions: ``budget_exceeded``, or with ``partial=True`` the
        path to the closed node nearest the goal (``partial``). Malformed
        input raises a ``NavError``.
        """
        if max_nodes is not None or partial is not False:
            return self._capped(graph_id, start, goal, algorithm, max_nodes, partial, options)
        graph, request = self.prepare_path(graph_id, start, goal, algorithm, **options)
        if type(request) is PathResult:
            return request
        return self._solve(graph, request)

    def closed_nodes(self, graph_id, start, goal, algorithm: str = "auto",
                     **options) -> tuple:
        """``(result, closed)``: ``find_path``'s result and the node ids its
        search closed (int32, one per expansion in ``result.expanded``;
        empty when the answer needed no search: an end not walkable, ends
        in different areas). What a debugger draws as "the nodes the last
        query expanded". A search whose nodes are intervals of mesh edges
        (Polyanya, a navmesh's ``auto``) returns a ``SearchIntervals``
        instead: the intervals it closed as segments and the polygons on
        either side, one row per expansion. Same checks and errors as
        ``find_path``; a ``QueryError`` when the search that answered keeps
        no record of its nodes (a contraction hierarchy's searches, a road
        graph's ``ch``)."""
        graph, request = self.prepare_path(graph_id, start, goal, algorithm, **options)
        none = np.zeros(0, dtype=np.int32)
        if type(request) is PathResult:
            return request, none
        result = self._solve(graph, request)
        if result.expanded == 0:
            return result, none
        again, closed = self._ask("navcore_closed_nodes", graph, request)
        if isinstance(closed, SearchIntervals):
            count = len(closed.segments)
        else:
            closed = np.asarray(closed, dtype=np.int32)
            count = closed.size
        if not _same_answer(result, again) or count != result.expanded:
            raise QueryError(
                f"closed_nodes: {result.algorithm or algorithm!r} on {graph.kind} graph "
                f"{graph_id!r} was answered by a search that keeps no record of the nodes "
                f"it closed (the recorded search expanded {again.expanded} nodes and "
                f"closed {count}, find_path's {result.expanded}); ask for an "
                f"algorithm the graph's own searches answer")
        return result, closed

    def _capped(self, graph_id, start, goal, algorithm, max_nodes, partial, options):
        """``find_path`` with ``max_nodes`` / ``partial``: one search step."""
        partial = validate.boolean(partial, "find_path: partial", QueryError)
        if max_nodes is None:
            raise QueryError("find_path: partial=True needs max_nodes (the expansions "
                             "after which the partial path is returned)")
        cap = validate.expansions(max_nodes, "find_path: max_nodes")
        search = self.begin_search(graph_id, start, goal, algorithm, **options)
        try:
            search.step(cap)
            return search.result(partial)
        finally:
            search.close()

    def begin_search(self, graph_id, start, goal, algorithm: str = "auto",
                     **options) -> Search:
        """``find_path``'s search, to run a slice at a time: a
        ``navcore.Search`` (``step(n)``, ``result()``; see
        ``navcore.search``). Same checks and errors as ``find_path``; ends
        that are not walkable give a search already finished."""
        graph, request = self.prepare_path(graph_id, start, goal, algorithm, **options)
        if type(request) is PathResult:
            return Search.finished(graph, PathRequest(graph_id, start, goal, algorithm,
                                                      -1, -1, options), request)
        if not self._has_postprocess() and self.plugins.covers(
                "navcore_find_path", "navcore_begin_search", type(graph)):
            return self._ask("navcore_begin_search", graph, request)
        return Search.whole(self, graph, request)

    def prepare_path(self, graph_id, start, goal, algorithm: str = "auto", **options):
        """``(graph, request)``: ``find_path``'s checks without the search.
        ``request`` is the resolved ``PathRequest``, or already the
        ``PathResult`` when the start or goal is not walkable (``solve``
        then answers the request; the scheduler batches requests this way).
        Malformed input raises a ``NavError``."""
        graph = self.graph(graph_id)
        if type(algorithm) is not str or algorithm != "auto" or options:
            # "auto" is always known; the last other algorithm checked
            # without options is remembered with its graph (one tuple
            # compared instead of the plugins' names looked up)
            if options or type(algorithm) is not str \
                    or self._checked != (graph, algorithm, self.plugins.version):
                self._check_query(graph, graph_id, algorithm, options)
                if not options:       # a str here: _check_query refuses anything else
                    self._checked = (graph, algorithm, self.plugins.version)
        s, t = graph.nodes_of(start, goal)
        if s < 0 or not graph.walkable[s]:
            return graph, _refused(graph, _INVALID_START)
        if t < 0 or not graph.walkable[t]:
            return graph, _refused(graph, _INVALID_GOAL)
        return graph, PathRequest(graph_id, start, goal, algorithm, s, t, options)

    def prepare_paths(self, graph_id, starts, goals, algorithm: str = "auto"):
        """``(graph, requests)``: ``prepare_path`` for many requests on one
        graph, ``requests[i]`` what ``prepare_path(graph_id, starts[i],
        goals[i], algorithm)`` would return. On a graph that locates whole
        arrays (``vector_locate``), ends given as ``(x, y)`` tuples or lists
        of Python or numpy numbers are located in one ``locate_many`` call
        (starts and goals together) and walkability is checked on arrays
        (the scheduler resolves a frame's requests this way); other ends
        one at a time through ``node_of``. Malformed input (an unknown
        graph or algorithm, an end the graph cannot place) raises a
        ``NavError`` and changes nothing."""
        starts, goals = list(starts), list(goals)
        graph, s, t, bad = self._resolve_many(graph_id, starts, goals, algorithm)
        if bad is None:
            bad = np.zeros(len(starts), dtype=np.int8)
        out = [_refused(graph, (_INVALID_START, _INVALID_GOAL)[b - 1]) if b else
               PathRequest(graph_id, a, g, algorithm, i, j, {})
               for a, g, i, j, b in zip(starts, goals, s.tolist(), t.tolist(),
                                        bad.tolist())]
        return graph, out

    def _resolve_many(self, graph_id, starts, goals, algorithm):
        """``prepare_paths`` in arrays, for the scheduler (no object per
        request): ``(graph, s, t, bad)`` with the int32 start and goal
        nodes and per request 0 (a search is due), 1 (invalid start) or
        2 (invalid goal), ``bad`` ``None`` when all are 0 (few numpy
        calls: a frame's round is ~40 requests, where each call costs as
        much as several requests' Python). ``starts``/``goals``: lists.
        Same checks and errors as ``prepare_paths``."""
        graph = self.graph(graph_id)
        self._check_query(graph, graph_id, algorithm, {})
        if len(starts) != len(goals):
            raise QueryError(f"prepare_paths needs as many starts as goals, got "
                             f"{len(starts)} and {len(goals)}")
        k = len(starts)
        nodes = ends.ends_of(graph, starts + goals).astype(np.int32)   # both in one
        s, t = nodes[:k], nodes[k:]
        off = (nodes < 0) | ~graph.walkable[np.maximum(nodes, 0)]
        if not off.any():
            return graph, s, t, None
        bad = np.where(off[:k], 1, np.where(off[k:], 2, 0)).astype(np.int8)
        return graph, s, t, bad

    def _check_query(self, graph, graph_id, algorithm, options) -> None:
        """``algorithm`` and ``options`` are known for ``graph``."""
        if type(algorithm) is not str or (algorithm != "auto"
                                          and algorithm not in self._algorithms(graph)):
            validate.choice(algorithm, ["auto", *sorted(self._algorithms(graph))],
                            "algorithm", QueryError,
                            where=f" for {graph.kind} graph {graph_id!r}")
        if options:
            validate.query_option_values(options, self._query_options(graph),
                                         f"{graph.kind} graph {graph_id!r}")

    def solve(self, graph: NavGraph, request: PathRequest) -> PathResult:
        """Run a request resolved by ``prepare_path`` through the query
        hooks (the scheduler serves requests this way). ``QueryError``
        when ``graph`` is not this world's graph of ``request.graph_id``;
        ends that are not node ids are a ``NodeError``, blocked ones the
        ``invalid_start`` / ``invalid_goal`` result."""
        if type(request) is not PathRequest or request.graph_id not in self.graphs \
                or self.graphs[request.graph_id] is not graph:
            raise QueryError(f"solve takes a graph of this world and a PathRequest for it "
                             f"(World.prepare_path makes both), got {graph!r} and "
                             f"{request!r}")
        n = graph.num_nodes
        s, t = request.start_node, request.goal_node
        if not (type(s) is int and 0 <= s < n):
            s = request.start_node = validate.node_id(s, n, "start")
        if not (type(t) is int and 0 <= t < n):
            t = request.goal_node = validate.node_id(t, n, "goal")
        walkable = graph.walkable
        if not walkable[s]:
            return _refused(graph, _INVALID_START)
        if not walkable[t]:
            return _refused(graph, _INVALID_GOAL)
        return self._solve(graph, request)

    def _solve(self, graph: NavGraph, request: PathRequest) -> PathResult:
        # the version before the search: a batch applied meanwhile (another
        # thread's tick) is then one the result does not know of
        stamp = graph._stamp
        if stamp[1] != graph.version:
            stamp = graph.stamp()
        # _ask's call without its argument packing: every query runs this
        result = self.plugins.caller("navcore_find_path", type(graph))(self, graph, request)
        if result is None:
            self._unanswered("navcore_find_path", graph, (request,))
        if result.status is _FOUND and self._has_postprocess():
            better = self.plugins.caller("navcore_postprocess_path", type(graph))(
                self, graph, request, result)
            if better is not None:
                result = better
        result.version = stamp
        return result

    def is_current(self, path) -> bool:
        """Whether ``path`` still holds on its graph: a ``PathResult`` of
        this world's queries (``find_path``, ``solve``) or a request's
        handle (``request_path``; ``False`` before its first result).

        True while the graph it was computed on (``PathResult.version``) is
        still in the world, the same graph object, and no update batch
        since made any node of the path dirty (blocked it, changed the
        cost of an edge at it, or gave its id to a new node: a navmesh
        re-tiling reuses polygon ids). A result that is not ``found`` (or a
        path without nodes) is current only while the graph has not changed
        at all: any batch may open a way or free an end. ``False`` when the
        graph's log of dirty nodes (``NavGraph.dirty_since``) no longer
        reaches back to the result, and for results without a version
        (made outside a world's queries, a cancelled request's). A path
        that is current may have a cheaper rival now (an update elsewhere
        opened a shortcut); it is still walkable at its cost.

        >>> import navcore
        >>> w = navcore.World()
        >>> _ = w.add_graph("g", type="grid", rows=["......"] * 3)
        >>> r = w.find_path("g", (0, 0), (5, 0))
        >>> w.update("g", cells=[(4, 2)], walkable=False); _ = w.tick()
        >>> w.is_current(r)                  # the wall is off the path
        True
        >>> w.update("g", cells=[(2, 0)], walkable=False); _ = w.tick()
        >>> w.is_current(r)
        False
        """
        result = path
        if not isinstance(result, PathResult):
            done, get = getattr(path, "done", None), getattr(path, "result", None)
            if type(done) is not bool or not callable(get):     # (a handle's done: a property)
                text = repr(path)
                raise QueryError(f"is_current takes a PathResult or a request_path handle, "
                                 f"got {type(path).__name__} "
                                 f"{text if len(text) <= 60 else text[:57] + '...'}")
            if not done:
                return False
            result = get()
            if not isinstance(result, PathResult):
                return False
        stamp = result.version
        if type(stamp) is not GraphVersion:
            return False
        for graph in list(self.graphs.values()):
            if graph.salt == stamp.salt:
                break
        else:
            return False                       # removed, or another graph object
        if stamp.version == graph.version:
            return True
        nodes = np.asarray(result.nodes)
        if result.status is not PathStatus.FOUND or nodes.size == 0:
            return False
        dirty = graph.dirty_since(stamp.version)
        if dirty is None:
            return False
        return not (dirty.size and np.isin(nodes, dirty).any())

    def path_costs(self, graph_id, paths) -> np.ndarray:
        """What each path in ``paths`` (sequences of node ids, e.g. earlier
        ``PathResult.nodes``) costs to walk on the graph as it is now:
        float64, ``inf`` where a node is blocked or a move is gone.

        >>> import navcore
        >>> w = navcore.World()
        >>> _ = w.add_graph("g", type="grid", rows=["...", "..."])
        >>> p = w.find_path("g", (0, 0), (2, 0)).nodes
        >>> w.update("g", cells=[(1, 0)], walkable=False); _ = w.tick()
        >>> w.path_costs("g", [p, [0, 3]]).tolist()
        [inf, 1.0]
        """
        graph = self.graph(graph_id)
        if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__"):
            raise NodeError(f"paths must be a list of node-id sequences, got {paths!r}")
        arrays = [ends.nodes(graph, p, f"paths[{i}]") for i, p in enumerate(paths)]
        starts = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum([a.size for a in arrays], out=starts[1:])
        nodes = np.concatenate(arrays) if arrays else np.empty(0, np.int32)
        return self._ask("navcore_path_costs", graph, nodes.astype(np.int32), starts)

    def reachable(self, graph_id, a, b) -> bool:
        """Whether ``b`` can be reached from ``a`` (False if either is blocked)."""
        graph = self.graph(graph_id)
        s, t = graph.node_of(a), graph.node_of(b)
        if s < 0 or t < 0 or not graph.walkable[s] or not graph.walkable[t]:
            return False
        if self._ask("navcore_reachable", graph, s, t):
            return True
        # a point on a corner that several nodes share (a navmesh pinch)
        # lies in all of them, as find_path starts and ends there
        starts, goals = graph.end_nodes(a, s), graph.end_nodes(b, t)
        if starts is None and goals is None:
            return False
        starts = [s] if starts is None else starts.tolist()
        goals = [t] if goals is None else goals.tolist()
        return any(self._ask("navcore_reachable", graph, u, v)
                   for u in starts for v in goals if (u, v) != (s, t))

    def reachable_many(self, graph_id, a, b) -> np.ndarray:
        """Vectorised ``reachable``: a bool array, one entry per pair
        ``(a[i], b[i])`` (node id arrays, or sequences of points)."""
        graph = self.graph(graph_id)
        src, src_pts = ends.nodes(graph, a, "a", allow_outside=True, with_points=True)
        dst, dst_pts = ends.nodes(graph, b, "b", allow_outside=True, with_points=True)
        if src.shape != dst.shape:
            raise QueryError(f"reachable_many needs as many a as b, got "
                             f"{src.size} and {dst.size}")
        out = self.plugins.caller("navcore_reachable_many", type(graph))(self, graph, src, dst)
        if out is None:
            out = np.array([self.reachable(graph_id, int(s), int(t)) if s >= 0 and t >= 0
                            else False for s, t in zip(src, dst)], dtype=bool)
        elif type(graph).end_nodes is not NavGraph.end_nodes and (
                src_pts is not None or dst_pts is not None):
            # the pairs answered False whose point ends may lie on a corner
            # several nodes share: asked again one at a time, with the points
            for i in np.flatnonzero(~out & (src >= 0) & (dst >= 0)).tolist():
                out[i] = self.reachable(graph_id, _given(src_pts, src, i),
                                        _given(dst_pts, dst, i))
        return out

    def area(self, graph_id, node_or_point) -> int:
        """Area (connected component) id of a node or point; ``-1`` when it
        is blocked or outside the graph."""
        graph = self.graph(graph_id)
        s = graph.node_of(node_or_point)
        if s < 0:
            return -1
        return int(self._ask("navcore_areas", graph, np.array([s], dtype=np.int32))[0])

    def areas(self, graph_id) -> np.ndarray:
        """int32 area id of every node (``-1`` for blocked nodes)."""
        graph = self.graph(graph_id)
        return self._ask("navcore_areas", graph, None)

    def nearest_reachable(self, graph_id, point, from_) -> int:
        """The walkable node closest to ``point`` that ``from_`` (a node or
        point) can reach; ``-1`` when ``from_`` is blocked or outside."""
        graph = self.graph(graph_id)
        s = graph.node_of(from_)
        if s < 0 or not graph.walkable[s]:
            return -1
        return int(self._ask("navcore_nearest_reachable", graph, point, s))

    def distance_matrix(self, graph_id, sources, targets) -> np.ndarray:
        """Float64 matrix of shortest costs, ``inf`` where unreachable
        (node ids, or points where the graph has positions). On a navmesh
        the costs are exact path lengths between the points (a polygon id
        stands for its centroid), as ``find_path`` measures them."""
        graph = self.graph(graph_id)
        # the answer's float64s (a plugin's scratch besides is its own
        # matter), weighed before the ends are converted: a view of a huge
        # array costs nothing until then
        m, n = limits.count(sources), limits.count(targets)
        limits.check_memory(f"a {m} x {n} distance matrix", 8 * m * n)
        src, src_pts = ends.nodes(graph, sources, "sources", with_points=True)
        dst, dst_pts = ends.nodes(graph, targets, "targets", with_points=True)
        return self._ask("navcore_distance_matrix", graph, src, dst, src_pts, dst_pts)

    def distance_pairs(self, graph_id, sources, targets) -> np.ndarray:
        """Float64 ``out[i]``: the shortest cost from ``sources[i]`` to
        ``targets[i]`` (``inf`` where unreachable), for arrays of pairs in
        one call (node ids, or points where the graph has positions; on a
        navmesh exact path lengths, as ``distance_matrix``).

        >>> import navcore
        >>> w = navcore.World()
        >>> _ = w.add_graph("g", type="csr", src=[0, 1], dst=[1, 2], cost=[1.0, 2.0])
        >>> w.distance_pairs("g", [0, 0, 2], [1, 2, 0]).tolist()
        [1.0, 3.0, inf]
        """
        graph = self.graph(graph_id)
        limits.check_pairs("distance_pairs", max(limits.count(sources), limits.count(targets)))
        src, src_pts = ends.nodes(graph, sources, "sources", with_points=True)
        dst, dst_pts = ends.nodes(graph, targets, "targets", with_points=True)
        if src.shape != dst.shape:
            raise QueryError(f"distance_pairs needs as many sources as targets, got "
                             f"{src.size} and {dst.size}")
        return self._ask("navcore_distance_pairs", graph, src, dst, src_pts, dst_pts)

    def isochrone(self, graph_id, source, max_cost, *, polygons: bool = False):
        """What can be reached from ``source`` within ``max_cost``: a
        ``navcore.Isochrone`` with the reached ``nodes`` and their
        ``costs``, the pieces of edges reached (``segments()``: partially
        reached edges end at a fraction), and outlines (``polygons()``,
        shapely; ``to_geojson()``).

        ``source``: a node id or a point (a tuple; a list of floats is a
        point too), or a list of them (several sources: each node's cost
        is its least from any). On a road
        network a (lon, lat) point is snapped onto its road, as
        ``find_path``'s ends are: the search leaves it along the road both
        ways a car may drive, and the piece of road it stands on counts.
        ``max_cost``: a cost limit >= 0 (``inf``: everything reachable),
        or a strictly increasing sequence of them (bands: ``band[i]`` is
        the first band node ``i`` lies in). A node is reached when its
        cost is ``<=`` the limit; a blocked source reaches nothing.
        ``polygons=True`` computes the outlines now (default buffer).
        Unknown nodes, points off the graph, an empty source and a bad
        ``max_cost`` are ``NodeError`` / ``QueryError``.

        >>> import navcore
        >>> w = navcore.World()
        >>> _ = w.add_graph("g", type="csr", src=[0, 1, 2], dst=[1, 2, 3],
        ...                 cost=[1.0, 1.0, 5.0], directed=False)
        >>> iso = w.isochrone("g", 0, [1, 3])
        >>> iso.nodes.tolist(), iso.costs.tolist(), iso.band.tolist()
        ([0, 1, 2], [0.0, 1.0, 2.0], [0, 0, 1])
        """
        graph = self.graph(graph_id)
        bands = validate.cost_limits(max_cost)
        polygons = validate.boolean(polygons, "isochrone: polygons", QueryError)
        items = validate.sources(source, getattr(graph, "point_dims", 2))
        src, pts = ends.nodes(graph, items, "isochrone: source", with_points=True)
        iso = self._ask("navcore_isochrone", graph, src, np.zeros(src.size), pts, bands)
        if polygons:
            iso.polygons()
        return iso

    def raycast(self, graph_id, start, end) -> RaycastHit:
        """Walk the walkable surface from ``start`` straight toward ``end``
        and say where a wall stops the way (``dtNavMeshQuery::raycast``):
        a ``RaycastHit`` (``hit``, ``t`` the fraction of the way where
        the wall is met or ``inf``, ``point``, the wall's ``normal``, the
        ``nodes`` crossed). The ray goes from the node holding the start
        into neighbours across shared sides only, so on a level it never
        drops to the floor below or climbs to the one above. On a level
        both ends are 3D points (only ``end``'s ground position matters;
        ``point`` lies on the surface); elsewhere 2D. A start on no
        walkable node gives ``status`` ``invalid_start`` (Detour's invalid
        start), malformed points a ``NavError``; a graph type without a
        raycast a ``QueryError``."""
        graph = self.graph(graph_id)
        return self._ask("navcore_raycast", graph, start, end)

    def random_point(self, graph_id, rng=None, *, around=None, radius=None) -> MeshPoint:
        """A point drawn uniformly from the walkable surface and its node
        (``MeshPoint(node, point)``; ``(-1, None)`` when nothing is
        walkable): a node chosen with probability proportional to its
        area, then a point uniform in it (``dtNavMeshQuery::findRandomPoint``);
        on a level a 3D point on the surface. ``rng``: ``None`` (fresh
        entropy), a seed (a non-negative int) or a ``numpy.random.Generator``
        (drawn from, so a sequence of calls continues it).

        With ``around=point`` and ``radius=r`` (both or neither): a point
        within ``r`` of ``point`` (on the ground plane), uniform over the
        walkable nodes connected to ``point``'s through nodes that each
        come within ``r`` of it (``findRandomPointAroundCircle``'s walk: a
        wander target; Detour's point may lie outside the circle, this one
        does not); ``(-1, None)`` when ``point`` is on no walkable node."""
        graph = self.graph(graph_id)
        if around is None and radius is None:
            return self._ask("navcore_random_point", graph, _rng(rng))
        if around is None or radius is None:
            raise QueryError("random_point: give around= and radius= together (a point and "
                             "how far from it), or neither")
        r = validate.distance(radius, "random_point: radius", QueryError)
        if not r > 0:
            raise QueryError(f"random_point: radius must be > 0, got {radius!r}")
        return self._ask("navcore_random_point_around", graph, around, r, _rng(rng))

    def nearest_point(self, graph_id, point) -> MeshPoint:
        """The point of the walkable surface nearest ``point`` and its node
        (``MeshPoint(node, point)``): ``point`` itself when a walkable node
        holds it. On a 2D navmesh the nearest over the whole mesh; on a
        level Detour's ``findNearestPoly`` (within the graph's ``extents``
        of ``point``, a floor under or over it counting only the height
        beyond ``climb``), ``MeshPoint(-1, None)`` when nothing is that
        near (or nothing is walkable). Malformed points raise a
        ``NavError``; a graph type without it a ``QueryError``."""
        graph = self.graph(graph_id)
        return self._ask("navcore_nearest_point", graph, point)

    def locate(self, graph_id, point) -> int:
        """The node at or nearest to ``point`` (``-1`` outside the graph)."""
        return self.graph(graph_id).locate(point)

    # -- internals ------------------------------------------------------------
    def _algorithms(self, graph) -> set:
        key = (id(graph), graph.kind, self.plugins.version)
        names = self._algo_cache.get(key)
        if names is None:
            names = set()
            for lst in self.plugins.caller("navcore_algorithms", type(graph))(self, graph):
                names.update(lst or ())
            if len(self._algo_cache) > 256:   # plugins or graphs changed a lot
                self._algo_cache.clear()
            self._algo_cache[key] = names
        return names

    def _query_options(self, graph) -> dict:
        """``{option: allowed values or None}`` the plugins read for ``graph``."""
        key = ("options", id(graph), graph.kind, self.plugins.version)
        names = self._algo_cache.get(key)
        if names is None:
            names = validate.query_options(
                self.plugins.caller("navcore_query_options", type(graph))(self, graph))
            self._algo_cache[key] = names
        return names

    def _has_postprocess(self) -> bool:
        version, has = self._post_cache
        if version != self.plugins.version:
            has = bool(self.plugins.hook.navcore_postprocess_path.get_hookimpls())
            self._post_cache = (self.plugins.version, has)
        return has

    def _ask(self, name, graph, *args):
        """The answer of firstresult hook ``name`` on ``graph`` (``args``:
        the hook's arguments after ``world`` and ``graph``, in its order):
        every query asks its hook this way. ``QueryError`` naming the graph,
        its type and the algorithm when no plugin answers."""
        answer = self.plugins.caller(name, type(graph))(self, graph, *args)
        if answer is None:
            self._unanswered(name, graph, args)
        return answer

    @staticmethod
    def _unanswered(name, graph, args):
        """The QueryError of ``_ask`` when no plugin answered ``name``."""
        algorithm = [f" with algorithm {a.algorithm!r}" for a in args
                     if isinstance(a, PathRequest)]
        raise QueryError(f"no plugin answered {name.removeprefix('navcore_')} on "
                         f"{graph.kind} graph {graph.graph_id!r}{''.join(algorithm)}"
                         f"{_HINTS.get(name, '')}")


def _same_answer(a: PathResult, b: PathResult) -> bool:
    """Whether two searches of one request gave the same answer."""
    return (a.status is b.status and a.expanded == b.expanded
            and (a.cost == b.cost or (a.cost != a.cost and b.cost != b.cost))
            and np.array_equal(a.nodes, b.nodes))


def _given(points, ids, i):
    """Entry ``i`` of a query's ends as the caller gave it: its point, or
    its node id where it was given as one (``ends.nodes``' NaN rows)."""
    if points is None or np.isnan(points[i]).any():
        return int(ids[i])
    return tuple(points[i].tolist())
