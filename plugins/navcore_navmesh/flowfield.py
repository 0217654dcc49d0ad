"""Flow fields on a 2D navmesh: the exact any-angle distance to one goal
from every point of the mesh, and the corner to head for next.

``MeshFlowField(graph, goal)`` runs Polyanya once from the goal with no
target (``_flowfield.expand_all``): every search node it closes (a root
at its exact distance from the goal, an interval of a polygon's edge it
sees through) is kept with the polygon beyond. The field at a point is
the least, over the nodes of the point's polygon, of the root's distance
plus the length from the root through the interval to the point (straight
in the cone, else round the interval's nearer end): the exact length of
the shortest path, as ``find_path`` measures it, for every point at
once. Reading it is a few multiplications per node of one polygon, all
points in one numba call; the corners ahead (``steer``) follow each
root's own way on toward the goal.

A crowd's agents sharing a goal walk one field (``navcore_flow_field``);
a field answers for the ``version`` of the graph it was made at.

>>> import navcore
>>> w = navcore.World()
>>> g = w.add_graph("room", type="navmesh", bounds=(0, 0, 10, 10),
...                 obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
>>> field = MeshFlowField(g, (9, 1))
>>> field.distances([(1, 1), (9, 9)]).round(6).tolist()
[17.231546, 8.0]
>>> round(w.find_path("room", (1, 1), (9, 1)).cost, 6)
17.231546
>>> cost, ahead, count = field.steer([(1, 1)], g.locate_many([(1, 1)]))
>>> ahead[0, :count[0]].tolist()               # round the wall's two corners
[[4.0, 8.0], [6.0, 8.0]]
"""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate
from navcore.errors import GraphError, NodeError, QueryError

from . import _flowfield as K
from .mesh import NavMeshGraph
from .polyanya import search_space

#: the most corners ``steer`` lists ahead of a point (the turn it makes
#: next and the corners after: enough to round a corner without stopping)
AHEAD = 3


class MeshFlowField(navcore.DerivedView):
    """The exact distance to point ``goal`` from every point of 2D navmesh
    ``graph`` as it is now (``version``), and the corners of a shortest
    path from each. ``goal`` must lie on walkable ground (within
    ``graph.snap_distance`` of it: then it is moved there), else
    ``NodeError``; a graph that is no 2D navmesh is a ``GraphError``.
    Paths see what ``find_path`` sees: blocked polygons and closed
    portals are walls. After an update to the graph the field is no
    longer ``current`` and refuses to answer (``QueryError``)."""

    def __init__(self, graph, goal):
        if not isinstance(graph, NavMeshGraph) or graph.heights is not None:
            raise GraphError(f"MeshFlowField needs a 2D navmesh graph (world.graph(id)), got "
                             f"{validate.describe(graph)}")
        super().__init__(graph)
        gx, gy = validate.xy(goal, "goal")
        seed = graph.locate_index().locate_point(gx, gy)
        if seed < 0:
            try:
                gx, gy = graph.on_mesh((gx, gy))
            except NodeError:
                raise NodeError(f"goal {(gx, gy)} is not on walkable ground of navmesh "
                                f"{graph.graph_id!r}") from None
            seed = graph.locate_index().locate_point(gx, gy)
        #: the goal point (as given, or moved onto the mesh)
        self.goal = (gx, gy)
        cap = max(1024, 8 * graph.num_polygons)
        while True:
            status, n, search = _expand(graph, gx, gy, seed, cap)
            if status != K.OUT_OF_NODES:
                break
            cap *= 2
        if status == K.GOAL_OFF_MESH:
            raise NodeError(f"goal {(gx, gy)} is not on walkable ground of navmesh "
                            f"{graph.graph_id!r}")
        #: how many search nodes made the field (its size, for benchmarks)
        self.search_nodes = int(n)
        nf, ni = search[0], search[1]
        #: the polygons holding the goal (several when it lies on an edge or a corner)
        self.goal_polygons = np.unique(ni[:n][ni[:n, 3] == -1, 2]).astype(np.int32)
        (self._start, self._root, self._pts, self._g, self._low, self._mode,
         self._via) = _collect(graph, n, search, gx, gy)
        self._vertices = graph.vertices

    @property
    def reachable(self) -> np.ndarray:
        """bool per polygon: the goal can be reached from it."""
        return np.diff(self._start) > 0

    def distances(self, points) -> np.ndarray:
        """float64 per point of ``points`` (``(k, 2)``): the exact length
        of the shortest path from it to the goal; ``inf`` where there is
        none, ``nan`` off the mesh (beyond ``snap_distance``)."""
        self._check_current("distances")
        pts = np.ascontiguousarray(validate.points(points, "points", QueryError))
        return self._read(pts, self.graph.locate_many(pts), 0)[0]

    def steer(self, points, nodes, goals=None, radii=None):
        """For agents at ``points`` (``(k, 2)``) standing in polygons
        ``nodes`` (``-1``: locate them): ``(cost, ahead, count)``, each
        one's exact distance to the goal (inf: no way, nan: off the mesh),
        and the next ``count[i]`` (up to ``AHEAD``) corners of its
        shortest path in ``ahead[i]`` (float64 ``(k, AHEAD, 2)``; after
        them the path goes straight to the goal). A node that does not hold
        its point (kept from before an update that blocked or re-tiled it)
        is located again.

        ``goals`` (``(k, 2)``, optional): each agent's own goal, in the
        field goal's polygon; where it is not the field's goal, an agent
        outside that polygon heads for the field's goal first (then
        straight to its own, as ``navcore_flow_field`` says). ``radii``
        (``(k,)``, optional): each agent's radius; each corner is then
        offered that far off it, away from the wall the way turns round
        (on the bisector of the turn), where a disc of that radius can
        round it (at the corner itself its edge would stand on the wall)."""
        self._check_current("steer")
        g = self.graph
        pts, polys, own, radii = (_arrays_as_given(points, nodes, goals, radii, g.num_nodes)
                                  or _steer_inputs(points, nodes, goals, radii, g.num_nodes))
        k = pts.shape[0]
        stale = K.misplaced(pts, polys, g.vertices, g.poly_start, g.poly_verts, g.walkable,
                            g.locate_index().tol)
        if stale.size:
            polys[stale] = g.locate_many(pts[stale])
        dist = np.empty(k)
        ahead = np.zeros((k, AHEAD, 2))
        count = np.empty(k, dtype=np.int32)
        gx, gy = self.goal
        K.steer_many(pts, polys, self._start, self._root, self._pts, self._g, self._low,
                     self._mode, self._via, self._vertices, gx, gy, self.goal_polygons, own,
                     radii, dist, ahead, count)
        return dist, ahead, count

    def _check_current(self, what):
        """A field answers for the graph's version it was made at: its
        polygon ids and corners may be gone since (``QueryError``)."""
        if not self.current:
            raise QueryError(f"{what}: this flow field was made for version {self.version} of "
                             f"navmesh {self.graph.graph_id!r}, which is at version "
                             f"{self.graph.version} now; make the field again")

    def _read(self, pts, polys, ahead):
        k = pts.shape[0]
        dist = np.empty(k)
        out = np.zeros((k, ahead, 2))
        count = np.empty(k, dtype=np.int32)
        gx, gy = self.goal
        K.read_many(pts, np.ascontiguousarray(polys, dtype=np.int32), self._start, self._root,
                    self._pts, self._g, self._low, self._mode, self._via, self._vertices, gx,
                    gy, dist, out, count)
        return dist, out, count


def _steer_inputs(points, nodes, goals, radii, num_nodes):
    """``steer``'s arguments checked one by one (``QueryError`` naming the
    first wrong one): float64 points ``(k, 2)``, int32 nodes (a copy),
    goals (``(0, 2)`` when not given) and radii (zeros when not given)."""
    pts = np.ascontiguousarray(validate.points(points, "points", QueryError))
    k = pts.shape[0]
    polys = _nodes(nodes, k, num_nodes)
    own = np.zeros((0, 2))
    if goals is not None:
        own = np.ascontiguousarray(validate.points(goals, "goals", QueryError))
        if own.shape != pts.shape:
            raise QueryError(f"steer: one goal per point ({k}), got {own.shape[0]}")
    if radii is None:
        radii = np.zeros(k)
    else:
        radii = np.ascontiguousarray(validate.array(radii, "radii", QueryError,
                                                    np.float64).reshape(-1))
        if radii.shape != (k,) or not (np.isfinite(radii) & (radii >= 0)).all():
            raise QueryError(f"steer: radii must be {k} finite numbers >= 0, one per "
                             f"point, got {validate.describe(radii)}")
    return pts, polys, own, radii


def _arrays_as_given(points, nodes, goals, radii, num_nodes):
    """``_steer_inputs``' answer in one kernel pass when the arguments are
    the arrays a crowd keeps (C-ordered float64 points ``(k, 2)``, int32
    nodes ``(k,)``, goals as the points or None, float64 radii ``(k,)``
    or None) and all are right; else None, and ``_steer_inputs`` checks
    them and says what is wrong. (Its numpy checks cost a 1,000-agent
    crowd step about 40 us; this about 3.)"""
    if not _f64(points, 2) or type(nodes) is not np.ndarray or nodes.dtype != np.int32:
        return None
    k = points.shape[0]
    if nodes.shape != (k,) or not (goals is None or _f64(goals, 2) and goals.shape == (k, 2)) \
            or not (radii is None or _f64(radii, 1) and radii.shape == (k,)):
        return None
    own = np.zeros((0, 2)) if goals is None else goals
    radii = np.zeros(k) if radii is None else radii
    if not K.inputs_valid(points, nodes, own, radii, num_nodes):
        return None
    return points, nodes.copy(), own, radii


def _f64(value, ndim):
    """Whether ``value`` is a C-ordered float64 array of ``ndim`` axes (two
    columns when 2)."""
    return type(value) is np.ndarray and value.dtype == np.float64 and value.ndim == ndim \
        and (ndim == 1 or value.shape[1] == 2) and value.flags.c_contiguous


def _nodes(nodes, k, num_nodes) -> np.ndarray:
    """int32 ``(k,)``: ``nodes`` checked, each ``-1`` or a polygon id."""
    try:
        arr = np.asarray(nodes)
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or arr.shape != (k,) or not (arr.size == 0 or validate.int_dtype(arr.dtype)):
        raise QueryError(f"steer: nodes must be {k} integer polygon ids (-1: not known), one "
                         f"per point, got {validate.describe(nodes)}")
    if arr.size and (arr.min() < -1 or arr.max() >= num_nodes):
        i = int(np.flatnonzero((arr < -1) | (arr >= num_nodes))[0])
        raise QueryError(f"steer: nodes[{i}] = {int(arr[i])} is neither -1 nor a polygon id "
                         f"of a mesh of {num_nodes} polygons")
    return np.array(arr, dtype=np.int32)


def flow_field(graph, goal_point):
    """``navcore_flow_field`` on a navmesh: a ``MeshFlowField`` toward
    ``goal_point`` on a 2D mesh (with no way from anywhere when an update
    blocked the ground under the goal since the crowd chose it), ``None``
    on a layered one (its agents plan paths)."""
    if graph.heights is not None:
        return None
    try:
        return MeshFlowField(graph, goal_point)
    except NodeError:
        return _no_way(graph, goal_point)


def _no_way(graph, goal):
    """A ``MeshFlowField`` toward ``goal`` that no polygon reaches."""
    field = MeshFlowField.__new__(MeshFlowField)
    navcore.DerivedView.__init__(field, graph)
    field.goal = tuple(float(v) for v in goal)
    field.search_nodes = 0
    field.goal_polygons = np.zeros(0, dtype=np.int32)
    field._start = np.zeros(graph.num_polygons + 1, dtype=np.int64)
    field._root, field._g, field._low = (np.zeros(0, dtype=np.int32), np.zeros(0),
                                         np.zeros(0))
    field._pts, field._mode = np.zeros((0, 4)), np.zeros(0, dtype=np.int8)
    field._via = np.full(len(graph.vertices), -2, dtype=np.int32)
    field._vertices = graph.vertices
    return field


def _expand(graph, gx, gy, seed, cap):
    """``_flowfield.expand_all`` from ``(gx, gy)`` in polygon ``seed`` with
    room for ``cap`` search nodes: ``(status, n, (nf, ni, root_g, turned,
    bound))``."""
    space = search_space(graph)
    mesh = space.mesh(graph.walkable)
    nv = len(graph.vertices)
    k = space.max_sides + 4
    nf = np.empty((cap, 6))
    ni = np.empty((cap, 6), dtype=np.int32)
    root_g = np.full(nv, np.inf)
    turned = np.full(nv, -1, dtype=np.int32)
    bound = np.full(graph.num_polygons, np.inf)
    status, n = K.expand_all(*mesh[:7], mesh[8], mesh[9], gx, gy, seed, nf, ni, np.empty(cap),
                             np.empty(cap, dtype=np.int32), root_g, turned, bound,
                             np.empty(max(space.most_around, 2) + 2, dtype=np.int32),
                             np.empty(k, dtype=np.int32), np.empty((k, 4)),
                             np.empty(k, dtype=np.int32))
    return status, n, (nf, ni, root_g, turned, bound)


def _collect(graph, n, search, gx, gy):
    """``_flowfield.collect`` of the first ``n`` nodes of ``search``."""
    params = search_space(graph).params
    return K.collect(n, *search, graph.vertices, graph.poly_start, graph.poly_verts,
                     float(params[1]), gx, gy, float(params[2]))


def warm_up(graph) -> None:
    """Load the kernels on ``graph``'s arrays: a search with room for one
    node (it stops at once), nothing collected, no point read."""
    if graph.heights is not None or not graph.walkable.any():
        return
    p = int(np.flatnonzero(graph.walkable)[0])
    gx, gy = (float(v) for v in graph.positions[p, :2])
    _, _, search = _expand(graph, gx, gy, p, 1)
    start, root, pts, g, low, mode, via = _collect(graph, 0, search, gx, gy)
    none = np.empty(0, dtype=np.int32)
    K.read_many(np.empty((0, 2)), none, start, root, pts, g, low, mode, via, graph.vertices,
                gx, gy, np.empty(0), np.empty((0, AHEAD, 2)), none)
    K.misplaced(np.empty((0, 2)), none, graph.vertices, graph.poly_start, graph.poly_verts,
                graph.walkable, graph.locate_index().tol)
    K.inputs_valid(np.empty((0, 2)), none, np.empty((0, 2)), np.empty(0), graph.num_nodes)
    K.steer_many(np.empty((0, 2)), none, start, root, pts, g, low, mode, via, graph.vertices,
                 gx, gy, none, np.empty((0, 2)), np.empty(0), np.empty(0),
                 np.empty((0, AHEAD, 2)), none)
