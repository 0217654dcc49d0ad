"""``algorithm="polyanya"``: exact any-angle shortest paths on a navmesh.

Polyanya (Cui, Harabor & Grastien, IJCAI 2017) searches intervals of mesh
edges instead of nodes, so its paths are the true Euclidean shortest paths
through the free space (taut strings around obstacle corners), not the
best path through one corridor of polygons as the funnel gives. The search
runs in one numba call (``_polyanya.py``) over the mesh arrays; scratch
memory (node pool, heap, stamps) is made once per thread and reused, so a
query allocates only its result.

``PathResult.points`` are the start, the corners turned and the goal;
``cost`` their length; ``nodes`` the polygons crossed, from the start's to
the goal's; ``expanded`` the search nodes popped. Lengths are Euclidean:
polygons blocked with ``walkable=False`` are walls to it, but per-polygon
``cost`` updates only weigh the polygon-graph searches (``polygon_astar``,
``polygon_dijkstra``: ``polygon_search``).

>>> import navcore
>>> w = navcore.World()
>>> _ = w.add_graph("room", type="navmesh", bounds=(0, 0, 10, 10),
...                 obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
>>> r = w.find_path("room", (1, 1), (9, 1), algorithm="polyanya")
>>> r.points.tolist()
[[1.0, 1.0], [4.0, 8.0], [6.0, 8.0], [9.0, 1.0]]
>>> round(r.cost, 6)                   # 2 * sqrt(3**2 + 7**2) + 2
17.231546
"""
from __future__ import annotations

import threading

import numpy as np

import navcore
from navcore import limits, validate
from navcore.errors import NodeError, QueryError
from navcore.types import PathResult, PathStatus

from . import _polyanya as K
from .mesh import NavMeshGraph, plain_xy, size_scale
from .polygon_search import EXACT_ALIASES

ALGORITHM = "polyanya"
#: the algorithm names Polyanya answers on a navmesh: its own, "auto" and
#: the generic names of an exact search
NAMES = frozenset(("auto", ALGORITHM, *EXACT_ALIASES))
#: the kernel's statuses each query compares with (no module lookup)
_FOUND, _OUT_OF_NODES = K.FOUND, K.OUT_OF_NODES
#: where a navmesh keeps its search space (``graph.view(SPACE_KEY)``)
SPACE_KEY = "navcore_navmesh.polyanya"


class SearchSpace(navcore.DerivedView):
    """What the exact search needs beyond the mesh: dead-end polygons
    (one neighbour in the mesh; never entered unless they hold the goal),
    the corners a path may turn at (walls' and blocked polygons') and the
    tolerances, scaled to the mesh's extent. A batch that keeps the
    geometry only refreshes the corners (``follow_walkable``); queries read
    ``graph.walkable`` themselves. Queries take their scratch from
    ``scratch()``."""

    def __init__(self, graph):
        super().__init__(graph)
        owner = np.repeat(np.arange(graph.num_polygons), np.diff(graph.poly_start))
        links = np.bincount(owner[graph.poly_adj >= 0], minlength=graph.num_polygons)
        self.one_way = links <= 1
        #: the polygons around each vertex, packed in one array: those of
        #: vertex v are incidence[incidence[v]:incidence[v + 1]] (a query
        #: end on a vertex starts in all of them, across pinches too)
        nv = len(graph.vertices)
        order = np.argsort(graph.poly_verts, kind="stable")
        counts = np.bincount(graph.poly_verts, minlength=nv)
        self.incidence = np.concatenate([
            (nv + 1 + np.concatenate([[0], np.cumsum(counts)])).astype(np.int32),
            owner[order].astype(np.int32)])
        #: the most polygons around one vertex
        self.most_around = int(counts.max(initial=0))
        scale = size_scale(graph.vertices)
        #: cross products within this of zero are collinear (Polyanya's
        #: EPSILON, relative: cross products grow with the square of size)
        self.eps = 1e-12 * scale * scale
        #: g values within this are equal (root pruning)
        self.geps = 1e-9 * scale
        sizes = np.diff(graph.poly_start)
        self.max_sides = int(sizes.max()) if sizes.size else 3
        #: the tolerances, packed for the kernels: a point within ``tol`` of
        #: twice a polygon's signed area is on its edge (as the locate index)
        self.params = np.array([graph.locate_index().tol, self.eps, self.geps])
        self._scratch = threading.local()
        self._parts = None
        #: the arrays it was made for: a batch that replaced them (obstacles
        #: re-triangulated) makes a new one, one that kept them does not
        self.geometry = (graph.vertices, graph.poly_start, graph.poly_adj)
        self.follow_walkable()

    def follow_walkable(self) -> None:
        """What the generic updates change, read again after every batch
        that kept the geometry: ``links``, the polygon across each edge as
        the search may cross it (``-1`` where the mesh has a wall, where
        the polygon across is blocked, or where the graph's edge between
        the two is gone or infinite: a closed portal); ``corner``, the
        mesh's corners and the ends of those new walls, where a path may
        turn."""
        #: the kernels' mesh arguments before ``walkable`` and after it, in
        #: their order: gathered once per batch, not per query (a query
        #: reads ``graph.walkable`` itself)
        self.before_walkable = _open_links(self.graph, self.graph.walkable)
        self.links, self.corner = self.before_walkable[3], self.before_walkable[5]
        self.after_walkable = (self.one_way, self.incidence, self.params)

    def parts(self) -> np.ndarray:
        """int32 per polygon: its connected part as the search crosses the
        mesh (``_polyanya.label_parts``: walkable polygons joined by open
        links, ``-1`` blocked), for the batch lengths to answer pairs in
        different parts without a search. Made on first need after each
        batch (from the links and flags that batch left), not by every
        update."""
        got = self._parts
        if got is None or got[0] is not self.links:
            part = np.empty(self.graph.num_polygons, dtype=np.int32)
            K.label_parts(self.graph.poly_start, self.links, self.graph.walkable, part)
            got = self._parts = (self.links, part)
        return got[1]

    def mesh(self, walkable) -> tuple:
        """The kernels' mesh argument (``_polyanya.Mesh``'s order) with the
        graph's ``walkable`` flags as a query reads them."""
        return self.before_walkable + (walkable,) + self.after_walkable

    def same_geometry(self) -> bool:
        g = self.graph
        return all(a is b for a, b in zip(self.geometry, (g.vertices, g.poly_start,
                                                          g.poly_adj)))

    def scratch(self) -> "Scratch":
        """This thread's scratch set (Detour: one query object per thread)."""
        try:
            return self._scratch.set
        except AttributeError:           # this thread's first query
            self._scratch.set = Scratch(self)
            return self._scratch.set


def _open_links(g, walkable) -> tuple:
    """The search kernels' mesh arguments before ``walkable`` (``Mesh``'s
    order) with the polygons ``walkable`` leaves out as walls: ``links``
    and ``corner`` made by ``open_links``."""
    csr = g.csr
    links = np.empty_like(g.poly_adj)
    corner = g.corner.copy()
    K.open_links(g.poly_start, g.poly_verts, g.poly_next, g.poly_adj, walkable, csr.offsets,
                 csr.targets, csr.cost, links, corner)
    return (g.vertices, g.poly_start, g.poly_verts, links, g.poly_opposite, corner)


class Scratch:
    """One search's memory: node pool, heap, stamps, registers. The pool
    grows (doubling) when a query runs out, and keeps its size afterwards.
    ``find_path`` uses one per thread (``SearchSpace.scratch``), a stepped
    search one of its own (``sliced``)."""

    def __init__(self, space: SearchSpace, capacity: int = 1024):
        g = space.graph
        # g of each vertex as a root, then the node that turned there
        self.root_g = np.zeros(2 * len(g.vertices), dtype=np.float64)
        # root stamps per vertex, then goal stamps per polygon (_polyanya.unpack)
        self.stamps = np.zeros(len(g.vertices) + g.num_polygons, dtype=np.int32)
        k = space.max_sides + 4
        # stamp generation, end polygons, successor kinds and edges, registers
        self.work = np.zeros(1 + 2 * g.num_polygons + 2 * k + K.NUM_REGS, dtype=np.int32)
        #: the kernel's registers (a view of ``work``): a search begins at
        #: ``regs[R_EXPANDED] == -1``, closes ``regs[R_BUDGET]`` nodes a call
        self.regs = self.work[-K.NUM_REGS:]
        self.regs[K.R_EXPANDED] = self.regs[K.R_BEST] = -1
        self.regs[K.R_BUDGET] = K.WHOLE
        self.s_pts = np.empty((k, 4), dtype=np.float64)
        #: the pairs the batch lengths answered unreachable without a
        #: search, their ends in different parts of the mesh (a count
        #: that only grows, for tests and benchmarks)
        self.skipped = np.zeros(1, dtype=np.int64)
        self.grow(capacity)

    def fits(self, space: SearchSpace) -> bool:
        """Whether this scratch serves searches on ``space``'s mesh as it
        is (a stepped search's slot outlives a re-tiling: every array
        sized by the vertices, the polygons or the widest polygon must
        match, or the kernel would index past one)."""
        g = space.graph
        nv, k = len(g.vertices), space.max_sides + 4
        return (self.root_g.size == 2 * nv and self.stamps.size == nv + g.num_polygons
                and self.work.size == 1 + 2 * g.num_polygons + 2 * k + K.NUM_REGS
                and self.s_pts.shape[0] == k)

    def grow(self, capacity: int) -> None:
        self.nf = np.empty((capacity, 6), dtype=np.float64)
        self.ni = np.empty((capacity, 5), dtype=np.int32)   # column 4: heap slots
        self.hkey = np.empty(capacity, dtype=np.float64)
        self.hid = np.empty(capacity, dtype=np.int32)
        #: the kernels' scratch arguments, in their order
        self.args = (self.nf, self.ni, self.hkey, self.hid, self.root_g, self.stamps, self.work,
                     self.s_pts)
        #: the same, as the batch kernel ``many_lengths`` takes them
        self.arrays = K.ScratchArrays(*self.args)


def _end_point(graph, where, node):
    """The caller's point, or the centroid of the polygon it named."""
    if validate.is_int(where):
        return graph.positions[node]
    return validate.xy(where)


def _seed(graph, point) -> int:
    """The polygon the locate index finds ``point`` in (-1: none)."""
    return graph.locate_index().locate_point(float(point[0]), float(point[1]))


def search_space(graph) -> SearchSpace:
    return graph.view(SPACE_KEY, SearchSpace)


def shortest_path(graph, start, goal, start_polygon=None, goal_polygon=None,
                  snapped=False) -> PathResult:
    """The exact shortest path from point ``start`` to point ``goal`` as
    a PathResult; ``start_polygon``/``goal_polygon``: where the caller
    already located them (else the locate index is asked). An end off the
    mesh but within ``graph.snap_distance`` of it is moved to the mesh's
    nearest point (the path starts or ends there); farther off, the status
    is ``invalid_start``/``invalid_goal``."""
    if not isinstance(graph, NavMeshGraph):
        raise QueryError(f"shortest_path needs a navmesh graph, got {graph!r}")
    sx, sy = validate.xy(start, "start point")
    gx, gy = validate.xy(goal, "goal point")
    s_seed = _seed(graph, (sx, sy)) if start_polygon is None else \
        _polygon(graph, start_polygon, "start_polygon")
    g_seed = _seed(graph, (gx, gy)) if goal_polygon is None else \
        _polygon(graph, goal_polygon, "goal_polygon")
    return _shortest(graph, sx, sy, gx, gy, s_seed, g_seed,
                     validate.boolean(snapped, "snapped", QueryError))


def _polygon(graph, p, what) -> int:
    """A polygon id the caller located an end in: in range (the kernel
    indexes the mesh arrays with it unchecked) and not a retired slot."""
    p = validate.node_id(p, graph.num_polygons, what)
    if graph.poly_start[p + 1] <= graph.poly_start[p]:
        raise NodeError(f"{what} {p} is a retired polygon slot (no longer part of the mesh)")
    return p


def _shortest(graph, sx, sy, gx, gy, s_seed, g_seed, snapped=False,
              space=None) -> PathResult:
    """``shortest_path`` between checked float ends and their polygons
    (-1: off the mesh); ``space``: a ``FilteredSpace`` (None: the graph's
    own search space and walkable flags)."""
    filtered = space
    if space is None:
        space = graph.view(SPACE_KEY, SearchSpace)
        walkable = graph.walkable
    else:
        walkable = space.walkable
    s = space.scratch()
    while True:
        status, points, polygons, length, expanded = K.search(
            *space.before_walkable, walkable, *space.after_walkable,
            sx, sy, s_seed, gx, gy, g_seed, *s.args)
        if status == _FOUND:
            return PathResult.found_path(polygons, points, length, expanded, ALGORITHM)
        if status != _OUT_OF_NODES:
            break
        s.grow(2 * len(s.hid))
    if status in (K.START_OFF_MESH, K.GOAL_OFF_MESH) and not snapped:
        moved = snapped_ends(graph, sx, sy, gx, gy)
        if moved is not None:
            return _shortest(graph, *moved, snapped=True, space=filtered)
    return failed(status, expanded)


class FilteredSpace:
    """A ``SearchSpace`` with polygons left out by a query filter
    (``areafilter``): ``walkable`` is the filter's mask, and the links and
    turn corners treat the left-out polygons as walls (as
    ``follow_walkable`` treats blocked ones), so the search stays exact
    over what is left. Scratch is the graph's own space's (same sizes)."""

    def __init__(self, graph, mask):
        base = search_space(graph)
        self.graph, self.max_sides, self.walkable = graph, base.max_sides, mask
        self.before_walkable = _open_links(graph, mask)
        self.after_walkable = base.after_walkable
        self.scratch = base.scratch


def filtered_space(graph, mask) -> FilteredSpace:
    return FilteredSpace(graph, mask)


def filtered_path(graph, request, space) -> PathResult:
    """``polyanya_path`` of ``request`` over a ``FilteredSpace``."""
    return _shortest(graph, *query_ends(graph, request), space=space)


def snapped_ends(graph, sx, sy, gx, gy):
    """``(sx, sy, gx, gy, s_seed, g_seed)``: the ends moved to the mesh's
    nearest points and located, for a search that found an end slightly
    off the mesh; None when one is farther off than the snap distance."""
    try:
        start, goal = graph.on_mesh((sx, sy)), graph.on_mesh((gx, gy))
    except navcore.NodeError:
        return None
    return (*start, *goal, _seed(graph, start), _seed(graph, goal))


def failed(status, expanded) -> PathResult:
    """The result of a search that ended with kernel ``status`` (not
    FOUND): an end off the mesh, or no path."""
    if status == K.START_OFF_MESH:
        return PathResult.failed(PathStatus.INVALID_START, ALGORITHM)
    if status == K.GOAL_OFF_MESH:
        return PathResult.failed(PathStatus.INVALID_GOAL, ALGORITHM)
    return PathResult.failed(PathStatus.UNREACHABLE, ALGORITHM, expanded)


def path_lengths(graph, starts, goals) -> np.ndarray:
    """Exact shortest lengths between ``starts[i]`` and ``goals[i]``
    (``(k, 2)`` points each) in one numba call: float64 ``(k,)``, ``inf``
    where unreachable, ``nan`` where an end lies off the mesh (or in a
    blocked polygon). Ends off the mesh but within ``graph.snap_distance``
    of it are moved to its nearest point first, as ``find_path`` does (the
    length is then from there). For many queries at once (an AI weighing
    targets, a benchmark): no Python between the searches.

    >>> import navcore
    >>> w = navcore.World()
    >>> g = w.add_graph("room", type="navmesh", bounds=(0, 0, 10, 10),
    ...                 obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
    >>> path_lengths(g, [(1, 1), (1, 1), (5, 5)], [(9, 1), (1, 4), (1, 1)]).round(6).tolist()
    [17.231546, 3.0, nan]
    """
    graph = validate.graph(graph, NavMeshGraph)
    limits.check_pairs("path_lengths", max(limits.count(starts), limits.count(goals)))
    a = validate.points(starts, "starts", navcore.QueryError)
    b = validate.points(goals, "goals", navcore.QueryError)
    if len(a) != len(b):
        raise navcore.QueryError(f"starts and goals differ in length: {len(a)} and {len(b)}")
    space = search_space(graph)
    ends = np.ascontiguousarray(np.hstack([a, b]))
    out = _many_lengths(graph, space, ends)
    off = np.flatnonzero(np.isnan(out))
    if off.size and graph.snap_distance > 0:
        # ends just off the mesh: from their nearest points, as find_path
        moved, rows = [], []
        for i in off.tolist():                    # only the few rows off the mesh
            try:
                p = graph.on_mesh(tuple(ends[i, :2])) + graph.on_mesh(tuple(ends[i, 2:]))
            except navcore.NodeError:
                continue
            if p != tuple(ends[i].tolist()):
                moved.append(p)
                rows.append(i)
        if rows:
            out[rows] = _many_lengths(graph, space, np.array(moved, dtype=np.float64))
    return out


def pair_lengths(graph, sources, targets, source_points=None,
                 target_points=None, seeded=False) -> np.ndarray:
    """``World.distance_pairs`` on a navmesh: float64 ``out[i]``, the exact
    shortest length from source ``i`` to target ``i``, ``inf`` where
    unreachable. ``sources``/``targets``: validated int32 polygon ids (the
    points already located); ``*_points``: the points the caller gave
    (``(k, 2)``, NaN where a polygon id was given; ``None``: ids only).
    A point is searched from where it lies; a polygon id from its centroid,
    as ``find_path`` does. A blocked polygon reaches nothing (``inf``).
    All pairs in one numba call (``path_lengths``). ``seeded``: each
    point lies in the polygon given with it and is searched from there
    (a layered mesh's ends, whose ground points more than one floor holds)
    instead of the polygon the ground-plane locate finds."""
    out = np.full(len(sources), np.inf)
    live = graph.walkable[sources] & graph.walkable[targets]
    if live.any():
        a = _where(graph, sources[live], None if source_points is None else
                   source_points[live])
        b = _where(graph, targets[live], None if target_points is None else
                   target_points[live])
        if seeded:
            seeds = np.ascontiguousarray(np.column_stack([sources[live], targets[live]]),
                                         dtype=np.int32)
            got = _many_lengths(graph, search_space(graph),
                                np.ascontiguousarray(np.hstack([a, b])), seeds)
        else:
            got = path_lengths(graph, a, b)
        out[live] = np.where(np.isnan(got), np.inf, got)     # nan: an end in a wall
    return out


def matrix_lengths(graph, sources, targets, source_points=None,
                   target_points=None, seeded=False) -> np.ndarray:
    """``World.distance_matrix`` on a navmesh: the ``(len(sources),
    len(targets))`` matrix of ``pair_lengths``, every pair in one call."""
    m, n = len(sources), len(targets)
    # every pair's ends are gathered (ids, points, seeds) before the search:
    # far more than the answer's float64 that World.distance_matrix weighs
    limits.check_pairs(f"a {m} x {n} navmesh distance matrix", m * n, 3 * limits.BYTES_PER_PAIR)
    rows, cols = np.repeat(np.arange(m), n), np.tile(np.arange(n), m)
    out = pair_lengths(graph, sources[rows], targets[cols],
                       None if source_points is None else source_points[rows],
                       None if target_points is None else target_points[cols], seeded)
    return out.reshape(m, n)


def _where(graph, nodes, points) -> np.ndarray:
    """float64 ``(k, 2)``: each given point, else its polygon's centroid."""
    out = np.array(graph.positions[nodes, :2], dtype=np.float64)
    if points is not None:
        given = ~np.isnan(points[:, 0])
        out[given] = points[given]
    return out


def _many_lengths(graph, space, ends, seeds=None) -> np.ndarray:
    """``path_lengths`` of the rows of ``ends`` (``sx, sy, gx, gy``), the
    ends in the int32 ``(k, 2)`` polygons ``seeds``, by default located by
    the index (no snapping). Pairs in different parts of the mesh are
    ``inf`` without a search (``SearchSpace.parts``)."""
    s = space.scratch()
    if seeds is None:
        index = graph.locate_index()
        seeds = np.ascontiguousarray(np.column_stack([index.locate_many(ends[:, :2]),
                                                      index.locate_many(ends[:, 2:])]))
    out = np.empty(len(ends))
    mesh = K.Mesh(*space.mesh(graph.walkable))
    part = space.parts()
    done = 0
    while done < len(ends):
        stop = K.many_lengths(mesh, ends[done:], seeds[done:], s.arrays, out[done:], part,
                              s.skipped)
        if stop < 0:
            break
        done += stop
        s.grow(2 * len(s.hid))
    return out


def polyanya_path(graph, request) -> PathResult:
    """Answer ``request`` (ends already resolved to polygons)."""
    # query_ends' lines, inlined: a call less on every query
    start, goal = request.start, request.goal
    s = plain_xy(start) or _end_point(graph, start, request.start_node)
    g = plain_xy(goal) or _end_point(graph, goal, request.goal_node)
    return _shortest(graph, s[0], s[1], g[0], g[1], request.start_node, request.goal_node)


def query_ends(graph, request):
    """``(sx, sy, gx, gy, s_seed, g_seed)`` of a request whose ends are
    resolved to polygons: its points, a polygon id at its centroid."""
    start, goal = request.start, request.goal
    # ends given as points were checked when World located them
    # (``node_of``): read as they are, a polygon id at its centroid
    s = plain_xy(start) or _end_point(graph, start, request.start_node)
    g = plain_xy(goal) or _end_point(graph, goal, request.goal_node)
    return s[0], s[1], g[0], g[1], request.start_node, request.goal_node


def warm_up(graph) -> None:
    """Compile (or load from the cache) the search now, on ``graph``'s
    own arrays."""
    end = graph.positions[0]
    shortest_path(graph, end, end)
    graph.nodes_of(end, end)          # World.find_path's ends, in one call
    graph.end_nodes((float(end[0]), float(end[1])), 0)     # the areas' pre-check


def searched_intervals(graph, request):
    """``(result, SearchIntervals)``: ``polyanya_path`` of ``request`` and
    the intervals its search closed, one per expansion in
    ``result.expanded`` (``World.closed_nodes``). Read from this thread's
    scratch right after the search, the search itself unchanged: the
    nodes it made are the pool's first ``regs[R_N]``; of those, the
    start's stand-ins (no entry edge) were never queued, nor was a node
    made as its parent's only successor outside the goal's polygons
    (expanded on the spot, uncounted); every other node was queued, and
    closed unless still in the heap (``hid[:regs[R_SIZE]]``)."""
    result = polyanya_path(graph, request)
    s = search_space(graph).scratch()
    n, size = int(s.regs[K.R_N]), int(s.regs[K.R_SIZE])
    ni, nf = s.ni[:n], s.nf[:n]
    gen = s.work[0]
    goal = s.stamps[len(graph.vertices):] == gen
    parent, polygon = ni[:, 1], ni[:, 2]
    stand_in = ni[:, 3] < 0
    children = np.bincount(parent[~stand_in], minlength=n)
    from_stand_in = stand_in[np.maximum(parent, 0)]
    on_the_spot = ~stand_in & ~from_stand_in & (children[np.maximum(parent, 0)] == 1) \
        & ~goal[polygon]
    closed = ~stand_in & ~on_the_spot
    closed[s.hid[:size]] = False
    rows = np.flatnonzero(closed)
    segments = np.ascontiguousarray(nf[rows, :4], dtype=np.float64)
    polygons = np.column_stack([polygon[parent[rows]], polygon[rows]]).astype(np.int32)
    return result, navcore.SearchIntervals(segments, polygons)
