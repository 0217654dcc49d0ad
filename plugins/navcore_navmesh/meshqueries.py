"""Point queries on a navmesh, 2D or layered (a level): ``raycast`` (the
first wall along a segment, ``dtNavMeshQuery::raycast``),
``random_point`` (uniform by area, ``findRandomPoint``) and
``nearest_point`` (``findNearestPoly``'s point).

All three work on the polygon arrays, which a layered mesh keeps in its
ground-plane projection: the ray crosses from a polygon only into the
one across a shared edge (``poly_adj``), so it never steps between floors
that overlap from above; on a layered mesh the ends are 3D points, the
start placed as ``find_path`` places it (``LayeredMeshGraph._end``) and
the answers lifted onto the surface (the graph's ``surface`` where it has
one, else the polygon's fan). Kernels in ``_meshqueries``."""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate
from navcore.types import MeshPoint, PathStatus, RaycastHit

from . import _layered as KL
from . import _locate as KI
from . import _meshqueries as K

#: where a navmesh keeps its running sum of walkable polygon areas
AREAS_KEY = "navcore_navmesh.areas"
#: this thread's buffer of the polygons a ray crosses
_VISITED_KEY = "navcore_navmesh.ray_visited"
_NO_POINT = MeshPoint(-1, None)


class PolygonAreas(navcore.DerivedView):
    """``cumulative``: the running sum over polygons of each walkable
    polygon's area in the ground plane (0 for blocked polygons and retired
    slots), what ``random_point`` draws from; ``lo``/``hi``: the box of
    the vertices (``nearest_point``'s reach). Rebuilt with the graph's
    version (a walkable flag or the polygons changed)."""

    def __init__(self, graph):
        super().__init__(graph)
        v, start, verts = graph.vertices, graph.poly_start, graph.poly_verts
        count = np.diff(start)
        owner = np.repeat(np.arange(len(count)), count)
        first = np.repeat(verts[np.minimum(start[:-1], len(verts) - 1)], count)
        nxt = np.arange(1, len(verts) + 1)
        nxt[start[1:][count > 0] - 1] = start[:-1][count > 0]
        a, b, o = v[verts, :2], v[verts[nxt], :2], v[first, :2]
        cross = (a[:, 0] - o[:, 0]) * (b[:, 1] - o[:, 1]) \
            - (b[:, 0] - o[:, 0]) * (a[:, 1] - o[:, 1])
        area = np.abs(np.bincount(owner, weights=cross, minlength=len(count))) / 2
        area[(count < 3) | ~graph.walkable] = 0.0
        self.cumulative = np.cumsum(area)
        self.lo, self.hi = v.min(axis=0), v.max(axis=0)


def _visited(graph):
    return np.empty(graph.num_nodes + 1, dtype=np.int32)


def raycast(graph, start, end) -> RaycastHit:
    """``World.raycast`` on a navmesh (see the module docstring)."""
    layered = graph.heights is not None
    if layered:
        node, ground = graph._end(start)
        if node >= 0 and ground is None:            # a polygon id: its centroid
            ground = tuple(graph.positions[node, :2])
        ex, ey, _ = graph._point3(end, "the ray's end")
    else:
        x, y = validate.xy(start, "the ray's start")
        ex, ey = validate.xy(end, "the ray's end")
        node, ground = _start_2d(graph, x, y)
    if node < 0 or not graph.walkable[node]:
        empty = np.empty(0, dtype=np.int32)
        return RaycastHit(PathStatus.INVALID_START, False, float("nan"), None, None, empty)
    sx, sy = float(ground[0]), float(ground[1])
    visited = graph.scratch(_VISITED_KEY, _visited)
    hit, t, nx, ny, count = K.raycast(sx, sy, ex, ey, node, graph.vertices,
                                      graph.poly_start, graph.poly_verts, graph.poly_adj,
                                      graph.poly_opposite, graph.walkable, visited)
    nodes = visited[:count].copy()
    px, py = (sx + t * (ex - sx), sy + t * (ey - sy)) if hit else (ex, ey)
    if not layered:
        return RaycastHit(PathStatus.FOUND, bool(hit), float(t), np.array([px, py]),
                          np.array([nx, ny]), nodes)
    point = _lift(graph, int(nodes[-1]), px, py)
    normal = graph._to_user(np.array([[nx, ny, 0.0]]))[0]
    return RaycastHit(PathStatus.FOUND, bool(hit), float(t), point, normal, nodes)


def _start_2d(graph, x, y):
    """``(polygon, (x, y))`` a 2D ray starts from: the polygon ``locate``
    gives, the point moved onto it when it lies off the mesh (within
    ``snap_distance``); ``(-1, None)``."""
    node = graph._locate_xy(x, y)
    if node < 0:
        return -1, None
    tol = graph.locate_index().tol
    if KI.inside(x, y, graph.vertices, graph.poly_start, graph.poly_verts, node, tol):
        return node, (x, y)
    _, qx, qy = KI.nearest_on(x, y, graph.vertices, graph.poly_start, graph.poly_verts, node)
    return node, (qx, qy)


def random_point(graph, rng) -> MeshPoint:
    """``World.random_point`` on a navmesh: a polygon chosen by area, a
    point uniform in it (``rng``: a numpy Generator)."""
    cumulative = graph.view(AREAS_KEY, PolygonAreas).cumulative
    if not len(cumulative) or not cumulative[-1] > 0:
        return _NO_POINT
    p, x, y = K.random_point(cumulative, graph.vertices, graph.poly_start, graph.poly_verts,
                             rng.random(4))
    if graph.heights is not None:
        return MeshPoint(int(p), _lift(graph, int(p), x, y))
    return MeshPoint(int(p), np.array([x, y]))


#: draws ``random_point_around`` makes before it settles for the centre
#: itself (a circle covering a sliver of huge polygons); each lands inside
#: it with probability the circle's share of the polygons' area
AROUND_TRIES = 256


def random_point_around(graph, point, radius, rng) -> MeshPoint:
    """``World.random_point(..., around=, radius=)`` on a navmesh: the
    walkable polygons connected to ``point``'s within the circle
    (``polygons_in_circle``), one drawn by area and a point uniform in it,
    drawn again until it lies in the circle (so uniform over the connected
    surface inside it); after ``AROUND_TRIES`` misses the centre's own
    point on its polygon."""
    if graph.heights is not None:
        p, ground = graph._end(point)
        if p >= 0 and ground is None:                 # a polygon id: its centroid
            ground = tuple(graph.positions[p, :2])
    else:
        p, ground = _start_2d(graph, *validate.xy(point, "around"))
    if p < 0 or not graph.walkable[p]:
        return _NO_POINT
    cx, cy = float(ground[0]), float(ground[1])
    polys = np.empty(graph.num_nodes, dtype=np.int64)
    n = K.polygons_in_circle(float(cx), float(cy), float(radius), int(p), graph.vertices,
                             graph.poly_start, graph.poly_verts, graph.poly_adj,
                             graph.walkable, polys)
    cumulative = graph.view(AREAS_KEY, PolygonAreas).cumulative
    area = np.diff(cumulative, prepend=0.0)
    mask = np.zeros(len(area))
    mask[polys[:n]] = 1.0
    chosen = np.cumsum(area * mask)
    r2 = float(radius) * float(radius)
    if chosen[-1] > 0:
        for _ in range(AROUND_TRIES):
            q, x, y = K.random_point(chosen, graph.vertices, graph.poly_start,
                                     graph.poly_verts, rng.random(4))
            if (x - cx) ** 2 + (y - cy) ** 2 <= r2:
                p, cx, cy = int(q), x, y
                break
    if graph.heights is not None:
        return MeshPoint(int(p), _lift(graph, int(p), float(cx), float(cy)))
    return MeshPoint(int(p), np.array([float(cx), float(cy)]))


def nearest_point(graph, point) -> MeshPoint:
    """``World.nearest_point`` on a navmesh: on a layered mesh
    ``nearest_poly`` (within ``extents``), on a 2D one the nearest point
    of the whole walkable mesh."""
    if graph.heights is not None:
        x, y, h = graph._point3(point, "point")
        p, gx, gy, _ = graph._nearest_walkable(x, y, h)
        return _NO_POINT if p < 0 else MeshPoint(int(p), _lift(graph, int(p), gx, gy))
    x, y = validate.xy(point, "point")
    index = graph.locate_index()
    p = index.locate_point(x, y)
    if p >= 0 and graph.walkable[p]:
        return MeshPoint(int(p), np.array([x, y]))
    box = graph.view(AREAS_KEY, PolygonAreas)
    lo, hi = box.lo[:2], box.hi[:2]
    # a circle that reaches every polygon from (x, y)
    away = np.hypot(max(lo[0] - x, x - hi[0], 0.0), max(lo[1] - y, y - hi[1], 0.0))
    radius = float(away + np.hypot(*(hi - lo)) + 1.0)
    p, px, py = index.nearest(x, y, radius)
    return _NO_POINT if p < 0 else MeshPoint(int(p), np.array([px, py]))


def _lift(graph, p, x, y) -> np.ndarray:
    """The 3D point (the caller's axes) of a layered mesh above ground
    point ``(x, y)`` on polygon ``p``: the ``surface`` height there when
    the graph knows it, else the polygon's fan."""
    h = KL.height_on(x, y, graph.vertices, graph.heights, graph.poly_start, graph.poly_verts, p)
    if graph.surface is not None:
        s = np.asarray(graph.surface(np.array([p], dtype=np.int32), np.array([[x, y]])),
                       dtype=np.float64)
        if np.isfinite(s[0]):
            h = float(s[0])
    return graph._to_user(np.array([[x, y, h]]))[0]


def warm_up(graph) -> None:
    """Compile the kernels on ``graph``'s arrays."""
    walk = np.flatnonzero(graph.walkable)
    if walk.size == 0:
        return
    random_point(graph, np.random.default_rng(0))
    p = int(walk[0])
    c = graph.positions[p]
    K.polygons_in_circle(float(c[0]), float(c[1]), 1.0, p, graph.vertices, graph.poly_start,
                         graph.poly_verts, graph.poly_adj, graph.walkable,
                         np.empty(graph.num_nodes, dtype=np.int64))
    K.raycast(float(c[0]), float(c[1]), float(c[0]) + 1.0, float(c[1]), p, graph.vertices,
              graph.poly_start, graph.poly_verts, graph.poly_adj, graph.poly_opposite,
              graph.walkable, graph.scratch(_VISITED_KEY, _visited))
