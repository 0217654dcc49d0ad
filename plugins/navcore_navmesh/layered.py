"""Layered navmeshes: convex polygons lying on a 3D surface, searched in
their projection on the ground plane.

A level's walkable surface (``navcore_levels``) has storeys, stairs and
bridges: polygons that overlap when seen from above. ``LayeredMeshGraph``
keeps the polygons' ground-plane projection as a ``NavMeshGraph`` (so
Polyanya, the funnel and the polygon-graph searches run unchanged) and
each vertex's height. What makes the overlap harmless:

* adjacency comes only from shared edges (shared vertex ids), never from
  positions: a floor and the floor above it are different vertices, so the
  searches, which only cross edges to the polygon across, never step from
  one onto the other;
* a query's end is a 3D point, placed on a polygon the way Detour's
  ``findNearestPoly`` does (``nearest_poly``): the polygon under or
  nearest it within ``extents`` (half sizes, ``(2, 4, 2)`` with the height
  in the middle), a polygon below or above the point counting only the
  height beyond ``climb``; so a point on the ground floor is never placed
  on the floor above. A 2D end is ambiguous and refused (``QueryError``);
  a polygon id is taken at its centroid;
* a found path is lifted back to 3D (``lift``): the points are the start,
  the corners turned (mesh vertices, at their own heights) and the goal,
  with the points between where the path crosses from one polygon into
  the next (at the crossed edge's height), so a path down the stairs
  shows the stairs. ``cost`` stays the length in the ground plane (what
  the search minimises); ``length_3d(result.points)`` is the 3D length.

A path point's height is the graph's ``surface`` there when it has one
(a level's detail height mesh: Detour's ``getPolyHeight``), else that of
the fan of triangles from its polygon's first corner (Detour's reading of
a polygon without a detail mesh; on rolling ground metres off between
corners). Locating a query end (the choice of polygon, with its climb
tolerance) reads the fan. Between the points a path is straight: on
rolling ground its segments may cut through a hill or float over a
hollow, as Detour's straight paths do.

Off-mesh links (``set_links``: jumps, ladders, doors, teleporters,
Detour's off-mesh connections) join points no walkable geometry joins;
the exact search follows them (``links``), ``PathResult.links`` says
where a path takes one.

Distance matrices and pairs take ``(k, 3)`` ends (or polygon ids), each
placed as ``find_path`` places it (``lengths``): their entries are
``find_path``'s costs. What refuses layered meshes (``QueryError``/
``GraphError``, never a wrong answer): 2D query ends, and the 2D navmesh's
obstacle/region updates (``walkable=`` and cost updates work; a level
built in tiles takes its own obstacles, which ``navcore_levels`` applies
by swapping the rebuilt polygons in with ``replace_layers``).
``free_space`` is the projection's union (every floor
merged: a ground plan, for drawing only). Stepped searches
(``begin_search``, requests, ``max_nodes``) step the plugin's own on the
ground plane (``LiftedSearch``), partial paths lifted too.
"""
from __future__ import annotations

import math

import numpy as np

from navcore import limits, validate
from navcore.errors import GraphError, NodeError, QueryError
from navcore.search import Search
from navcore.types import PathRequest, PathResult, PathStatus

from . import _layered as K
from ._locate import corner_at as _corner_at
from . import funnel, polyanya
from .mesh import LOCATE_KEY, LocateIndex, NavMeshGraph

#: Detour's half extents of ``findNearestPoly`` in RecastDemo: 2 across, 4 up
DEFAULT_EXTENTS = (2.0, 4.0, 2.0)
_AXES = {"y": (0, 2, 1), "z": (0, 1, 2)}      # ground axes, then the up axis
_isfinite = math.isfinite
#: ``user_points``' surface heights when there are none
_NO_HEIGHTS = np.empty(0)
#: the results ``lift`` lifts: those with a path
_LIFTED = (PathStatus.FOUND, PathStatus.PARTIAL)
#: this thread's last located query ends (``nodes_of``), a one-slot list
_ENDS_KEY = "navcore_navmesh.layered_ends"


def _new_ends(graph):
    return [None]


def length_3d(points) -> float:
    """The length of a polyline of ``(k, 3)`` points (a layered path's
    ``points``): the sum of its segments' 3D lengths."""
    p = validate.array(points, "points", QueryError, np.float64)
    if p.ndim == 2 and p.shape[0] == 0:        # no path (unreachable): no length
        return 0.0
    if p.ndim != 2 or p.shape[1] != 3:
        raise QueryError(f"length_3d: points must have shape (k, 3), got {p.shape}")
    return float(np.sqrt((np.diff(p, axis=0) ** 2).sum(axis=1)).sum())


class LayeredMeshGraph(NavMeshGraph):
    """A ``NavMeshGraph`` of the ground-plane projection of polygons on a
    3D surface (see the module docstring). Beyond ``NavMeshGraph``'s
    attributes (which describe the projection: ``vertices`` are ``(V, 2)``
    ground coordinates):

    * ``heights`` float64 ``(V,)``: each vertex's height;
    * ``up``: ``"y"`` or ``"z"``, the axis of the caller's points that
      points up (ground coordinates are ``(x, z)`` or ``(x, y)``);
    * ``extents``: ``(across, up, across)`` half sizes of the box a query
      end looks for polygons in; ``climb``: the height difference that
      still counts as standing on a polygon;
    * ``links``: the off-mesh links (``links.Links``, ``set_links``), or
      ``None``.
    """

    #: ``surface(polygons, ground_points) -> heights``: the heights of the
    #: walkable surface itself (a level's detail mesh) at path points, each
    #: on the polygon given (NaN: unknown there); ``None``: the polygons'
    surface = None
    up = "y"
    extents = DEFAULT_EXTENTS
    climb = 0.0
    _packed = None                # the locate kernels' arguments (``_kernel_args``)
    links = None
    #: query points are 3D (``navcore.ends`` keeps matrix ends' 3 coordinates)
    point_dims = 3

    @property
    def paths_follow_edges(self) -> bool:
        """False while the graph has links: a path may leave a connected
        part of the mesh by one (``NavGraph.paths_follow_edges``)."""
        return self.links is None

    def set_links(self, links, radius=0.0) -> None:
        """Make ``links`` (a list of dicts: ``start``, ``end`` 3D points,
        optional ``radius`` (default ``radius``), ``bidirectional``
        (``True``), ``cost`` (the 3D distance from start to end) and
        ``kind`` (``"link"``); see ``navcore_navmesh.links``) the graph's
        off-mesh links, replacing any it had; an empty list or ``None``
        removes them. ``GraphError`` naming the link's index for a bad one
        (then nothing changes)."""
        from .links import LINKS_KEY, parse_links
        parsed = None if links is None else parse_links(self, links, radius)
        self.links = parsed if parsed is not None and len(parsed) else None
        self.drop_view(LINKS_KEY)

    def replace_mesh(self, *args, **kwargs) -> None:
        """Only while ``from_layers`` builds the graph: its heights and
        boxes belong to these polygons (``GraphError`` afterwards)."""
        if self.heights is not None:
            raise GraphError("replace_mesh: a layered navmesh's polygons are fixed (their "
                             "heights would no longer match); build a new graph")
        super().replace_mesh(*args, **kwargs)

    def replace_layers(self, other: "LayeredMeshGraph", walkable) -> None:
        """Take ``other``'s polygons, heights and surface (a layered mesh
        ``from_layers`` made for the same ``up``, ``extents`` and
        ``climb``), with the bool ``walkable`` mask, inside an update batch
        (``begin_write`` .. ``end_write``): how a level's obstacle update
        swaps its rebuilt mesh into the graph the world holds (outside a
        batch it brackets itself, as ``replace_mesh`` does). The caller
        bumps ``version`` once for the batch; views built on the old
        polygons go stale with it (the locate index, the search space, the
        kernels' packed arguments, which key on the locate index)."""
        if not isinstance(other, LayeredMeshGraph) or other.heights is None:
            raise GraphError(f"replace_layers takes a LayeredMeshGraph made by from_layers, "
                             f"got {validate.describe(other)}")
        if (other.up, other.extents, other.climb) != (self.up, self.extents, self.climb):
            raise GraphError("replace_layers: the other mesh has another up axis, extents or "
                             "climb")
        walkable = validate.array(walkable, "walkable", GraphError)
        if walkable.dtype != np.bool_ or walkable.shape != (other.num_nodes,):
            raise GraphError(f"replace_layers: walkable must be a bool array of the other "
                             f"mesh's {other.num_nodes} polygons, got {walkable.dtype} "
                             f"{walkable.shape}")
        if not self.writing_here():          # as replace_mesh: a batch of its own
            self.begin_write()
            try:
                self.replace_layers(other, walkable)
            finally:
                self.end_write()
            return
        NavMeshGraph.replace_mesh(self, other.vertices, other.poly_start, other.poly_verts,
                                  csr=other.csr, positions=other.positions,
                                  walkable=np.ascontiguousarray(walkable),
                                  poly_adj=other.poly_adj, poly_opposite=other.poly_opposite,
                                  poly_next=other.poly_next, corner=other.corner)
        self.heights = other.heights
        self.surface = other.surface
        self._lo, self._hi = other._lo, other._hi
        self.snap_distance = other.snap_distance
        self._packed = None
        self.drop_view(LOCATE_KEY)
        # the polygons are numbered afresh: ids from before name others
        self.stable_node_ids = False

    def _point3(self, where, what) -> tuple:
        """A caller's 3D point as ``(gx, gy, h)``: ground coordinates and
        height."""
        kind = type(where)
        if (kind is tuple or kind is list) and len(where) == 3:
            a, b, c = where
            if type(a) is float and type(b) is float and type(c) is float \
                    and _isfinite(a) and _isfinite(b) and _isfinite(c):
                # a point as games pass it, read without an array
                x, y, u = _AXES[self.up]
                return where[x], where[y], where[u]
        try:
            p = np.asarray(where, dtype=np.float64)
        except (TypeError, ValueError):
            p = None
        if p is None or p.shape != (3,):
            if p is not None and p.shape == (2,):
                raise QueryError(
                    f"{what} {where!r} is a 2D point, which is ambiguous on the layered "
                    f"(3D) navmesh: give (x, y, z) with {self.up} up, or a polygon id")
            raise NodeError(f"{what} must be a polygon id or a 3D point (x, y, z), got "
                            f"{validate.describe(where)}")
        if not np.isfinite(p).all():
            raise NodeError(f"{what} {where!r} is not a finite point")
        a, b, u = _AXES[self.up]
        return float(p[a]), float(p[b]), float(p[u])

    def nearest_poly(self, point) -> tuple:
        """``(polygon, point)``: the walkable polygon a 3D ``point`` stands
        on (Detour's ``findNearestPoly``, see the module docstring) and the
        point of it nearest ``point`` (``(3,)``, the caller's axes);
        ``(-1, None)`` when no polygon is within ``extents``."""
        p, gx, gy, h = self._nearest(*self._point3(point, "a point"))
        return (p, None) if p < 0 else (p, self._to_user(np.array([[gx, gy, h]]))[0])

    def _nearest(self, x, y, h):
        return K.nearest_poly(x, y, h, *self._kernel_args(), self._packed[3],
                              *self._packed[2])

    def _nearest_walkable(self, x, y, h):
        """``_nearest`` among the walkable polygons only (``nearest_point``:
        a query end is placed on a blocked polygon too, which makes it
        invalid, not moved to the next floor)."""
        return K.nearest_poly(x, y, h, *self._kernel_args(), self.walkable, *self._packed[2])

    def _kernel_args(self) -> tuple:
        """The locate kernels' arguments before ``walkable`` (those after
        it: ``self._packed[2]``; ``self._packed[3]``: the candidate mask
        that lets every polygon through), gathered once per locate index."""
        index = self.view(LOCATE_KEY, LocateIndex)
        packed = self._packed
        if packed is None or packed[0] is not index:
            ex, ey, ez = self.extents
            packed = self._packed = (
                index, (ex, ez, ey, self.climb, self.vertices, self.heights, self.poly_start,
                        self.poly_verts),
                (self._lo, self._hi, index.cell_start, index.cell_polys, index.x0, index.y0,
                 index.inv, index.nx, index.ny, index.tol),
                np.ones(self.num_nodes, dtype=np.bool_))
        return packed[1]

    def locate(self, point) -> int:
        """The polygon a 3D point stands on (``nearest_poly``), ``-1``."""
        return self._nearest(*self._point3(point, "a point"))[0]

    def node_of(self, where) -> int:
        if type(where) is int or validate.is_int(where):
            return super().node_of(where)
        return self.locate(where)

    def nodes_of(self, start, goal) -> tuple:
        """A query's two ends located; where a 3D point stands on its
        polygon is kept (per thread) for the search that follows
        (``ground_end``), so each end is located once."""
        a, b = self._end(start), self._end(goal)
        self.scratch(_ENDS_KEY, _new_ends)[0] = (start, a, goal, b)
        return a[0], b[0]

    def _end(self, where) -> tuple:
        """``(node, ground point or None)`` of a query end."""
        if type(where) is int or validate.is_int(where):
            return super().node_of(where), None
        x, y, h = self._point3(where, "a query end")
        p, gx, gy, _ = self._nearest(x, y, h)
        if p >= 0 and (gx, gy) != (x, y):
            # clamped onto the polygon's boundary: a hair inside it, so the
            # search finds it in ``p`` whatever the rounding (never by the
            # ground-plane locate index, which does not know floors)
            c = self.positions[p]
            gx, gy = gx + 1e-9 * (c[0] - gx), gy + 1e-9 * (c[1] - gy)
        return p, (float(gx), float(gy))

    def end_nodes(self, end, node):
        """``NavMeshGraph.end_nodes`` of the ground point a 3D ``end``
        starts from on ``node`` (``ground_end``): the walkable polygons
        around the corner it lies exactly on (a pinch: polygons of two
        areas touching there only, all of which the search starts in),
        else ``None``; ``None`` for a polygon id. Polygons of other
        storeys have vertices of their own, so never come with it."""
        if type(end) is int or validate.is_int(end):
            return None
        ground = self.ground_end(end, node)
        if type(ground) is not tuple or _corner_at(ground[0], ground[1], int(node), self.vertices,
                                                   self.poly_start, self.poly_verts) < 0:
            return None             # the usual answer, told by one kernel call
        return NavMeshGraph.end_nodes(self, ground, node)

    def locate_many(self, points) -> np.ndarray:
        """int32 polygon per 3D point of ``points`` (``(k, 3)``), ``-1``
        where none is within ``extents``."""
        p = validate.array(points, "points", NodeError, np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise QueryError(f"points must have shape (k, 3) on the layered navmesh (2D "
                             f"points are ambiguous there), got {p.shape}")
        if not np.isfinite(p).all():
            raise NodeError("points must be finite")
        a, b, u = _AXES[self.up]
        out = np.empty(len(p), dtype=np.int32)
        args = self._kernel_args()
        K.nearest_polys(np.ascontiguousarray(p[:, [a, b]]), np.ascontiguousarray(p[:, u]),
                        *args, self._packed[3], *self._packed[2], out, np.empty((len(p), 2)))
        return out

    def nearest_polys(self, points) -> tuple:
        """``nearest_poly`` of many 3D points (``(k, 3)``, the caller's
        axes), in one kernel call: int32 polygons (``-1`` where none is
        within ``extents``; walkable or not) and float64 ``(k, 3)`` points,
        each the nearest of its polygon on the surface (``points_on``; the
        point itself where there is no polygon)."""
        p = validate.array(points, "points", QueryError, np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise QueryError(f"points must have shape (k, 3) on the layered navmesh (2D "
                             f"points are ambiguous there), got {p.shape}")
        if not np.isfinite(p).all():
            i = int(np.flatnonzero(~np.isfinite(p).all(axis=1))[0])
            raise QueryError(f"points[{i}] = {p[i].tolist()} is not a finite point")
        a, b, u = _AXES[self.up]
        polys = np.empty(len(p), dtype=np.int32)
        xy = np.empty((len(p), 2))
        K.nearest_polys(np.ascontiguousarray(p[:, [a, b]]), np.ascontiguousarray(p[:, u]),
                        *self._kernel_args(), self._packed[3], *self._packed[2], polys, xy)
        out = p.copy()
        on = polys >= 0
        if on.any():
            out[on] = self.points_on(polys[on], xy[on])
        return polys, out

    def ground_end(self, where, node):
        """The ground-plane point a search starts or ends at for the end
        ``where`` resolved to polygon ``node``: a polygon id's centroid, a
        3D point's nearest point on ``node``."""
        node = validate.node_id(node, self.num_nodes, "node")
        last = self.scratch(_ENDS_KEY, _new_ends)[0]
        if last is not None:
            if where is last[0] and last[1][0] == node:
                end = last[1]
            elif where is last[2] and last[3][0] == node:
                end = last[3]
            else:
                end = self._end(where)
        else:
            end = self._end(where)
        return node if end[1] is None or end[0] != node else end[1]

    def lift(self, result, per_node=False) -> PathResult:
        """``result`` (a found path in the ground plane) with its points in
        3D, in the caller's axes: a polygon-graph path's (``per_node``)
        centroids at their polygons' heights, an any-angle path's through
        ``lift_path``."""
        if not isinstance(result, PathResult):
            raise QueryError(f"lift takes a PathResult, got {validate.describe(result)}")
        if result.status not in _LIFTED or not len(result.points):
            return result
        nodes = np.ascontiguousarray(result.nodes, dtype=np.int32)
        pts = np.ascontiguousarray(result.points[:, :2], dtype=np.float64)
        if per_node or len(nodes) == 0:
            on = nodes if len(nodes) == len(pts) else np.zeros(len(pts), dtype=np.int32)
            h = np.array([K.height_on(float(x), float(y), self.vertices, self.heights,
                                      self.poly_start, self.poly_verts, int(p))
                          for (x, y), p in zip(pts, on)])
            out = np.column_stack([pts, h])
        else:
            buf = np.empty((len(pts) + len(nodes) + 1, 3))
            on = np.empty(len(buf), dtype=np.int32)
            n = K.lift_path(self.vertices, self.heights, self.poly_start, self.poly_verts,
                            self.poly_adj, nodes, pts, buf, on)
            out, on = buf[:n], on[:n]
        # the surface's own heights where it knows them (a level's detail
        # mesh), the polygon's fan elsewhere; both and the axes in one kernel
        h = _NO_HEIGHTS if self.surface is None or not len(out) else np.asarray(
            self.surface(on, np.ascontiguousarray(out[:, :2])), dtype=np.float64)
        lifted = PathResult.found_path(result.nodes, K.user_points(out, h, *_AXES[self.up]),
                                       result.cost, result.expanded, result.algorithm)
        lifted.status = result.status
        return lifted

    def points_on(self, polygons, ground) -> np.ndarray:
        """``(k, 3)`` points in the caller's axes: the ground points
        ``ground`` (``(k, 2)``), each on its polygon of ``polygons``,
        lifted onto the surface (``surface``, else the polygon's fan)."""
        polys = validate.node_ids(polygons, self.num_nodes, "polygons", QueryError, np.int32)
        g = validate.array(ground, "ground", QueryError, np.float64)
        if g.shape != (len(polys), 2) or not np.isfinite(g).all():
            raise QueryError(f"ground must be {len(polys)} finite (x, y) points, one per "
                             f"polygon, got shape {g.shape}")
        g = np.ascontiguousarray(g)
        h = np.empty(len(polys))
        K.heights_on(g, polys, self.vertices, self.heights, self.poly_start, self.poly_verts, h)
        if self.surface is not None and len(g):
            top = np.asarray(self.surface(polys, np.ascontiguousarray(g)), dtype=np.float64)
            h = np.where(np.isfinite(top), top, h)
        return self._to_user(np.column_stack([g, h]).reshape(-1, 3))

    def to_ground(self, points) -> np.ndarray:
        """``(k, 2)`` ground coordinates of ``(k, 3)`` points in the
        caller's axes (``(x, z)`` when y is up, ``(x, y)`` when z is)."""
        p = validate.array(points, "points", QueryError, np.float64)
        if p.ndim != 2 or p.shape[1] != 3:
            raise QueryError(f"to_ground: points must have shape (k, 3), got {p.shape}")
        a, b, _ = _AXES[self.up]
        return p[:, [a, b]]

    def _to_user(self, ground_h) -> np.ndarray:
        """``(k, 3)`` rows ``(gx, gy, h)`` in the caller's axes."""
        out = np.empty_like(ground_h)
        a, b, u = _AXES[self.up]
        out[:, a], out[:, b], out[:, u] = ground_h[:, 0], ground_h[:, 1], ground_h[:, 2]
        return out

    @classmethod
    def from_layers(cls, vertices, poly_start, poly_verts, *, up="y", extents=DEFAULT_EXTENTS,
                    climb=0.0, surface=None, world=None) -> "LayeredMeshGraph":
        """A layered navmesh from ``(V, 3)`` ``vertices`` (``up``: the axis
        pointing up, ``"y"`` or ``"z"``) and convex polygons:
        ``poly_verts[poly_start[p]:poly_start[p + 1]]`` are polygon ``p``'s
        vertex ids, in either winding (each is made counter-clockwise in
        the ground plane). Polygons may overlap in projection (storeys);
        they are joined only where they share an edge (two vertex ids).
        ``surface``: ``None`` or ``surface(polygons, ground_points) ->
        heights`` (int32 ``(n,)``, float64 ``(n, 2)``), the height of the
        walkable surface at path points (``LayeredMeshGraph.surface``).
        ``GraphError`` says what is wrong with the arrays."""
        if surface is not None and not callable(surface):
            raise GraphError(f"surface must be None or a callable, got "
                             f"{validate.describe(surface)}")
        if up not in _AXES:
            raise GraphError(f"up must be 'y' or 'z', got {up!r}")
        v = validate.array(vertices, "vertices", GraphError, np.float64)
        if v.ndim != 2 or v.shape[1] != 3 or len(v) < 3:
            raise GraphError(f"vertices must have shape (V, 3) with V >= 3, got {v.shape}")
        bad = ~(np.abs(v) <= limits.MAX_COORDINATE).all(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise GraphError(f"vertices[{i}] is not finite or lies beyond "
                             f"±{limits.MAX_COORDINATE:g}: {v[i].tolist()}")
        ext = validate.array(extents, "extents", GraphError, np.float64)
        if ext.shape != (3,) or not (np.isfinite(ext).all() and (ext >= 0).all()):
            raise GraphError(f"extents must be three finite half sizes >= 0, got {extents!r}")
        climb = validate.distance(climb, "climb", GraphError)
        verts = validate.node_ids(poly_verts, len(v), "poly_verts", GraphError, np.int64)
        start = validate.node_ids(poly_start, len(verts) + 1, "poly_start", GraphError,
                                  np.int64)
        if len(start) < 2 or start[0] != 0 or start[-1] != len(verts) \
                or (np.diff(start) < 3).any():
            raise GraphError(f"poly_start must rise from 0 to len(poly_verts) = {len(verts)} "
                             f"by at least 3 corners a polygon, got {start.tolist()[:12]}")
        a, b, u = _AXES[up]
        ground = np.ascontiguousarray(v[:, [a, b]])
        verts = _counter_clockwise(ground, start, verts)
        graph = cls._from_checked(ground, start, verts, None, world=world)
        graph.heights = np.ascontiguousarray(v[:, u])
        graph.up = up
        graph.extents = tuple(float(e) for e in ext)
        graph.climb = float(climb)
        graph.surface = surface
        corners = np.column_stack([ground, graph.heights])[graph.poly_verts]
        first = graph.poly_start[:-1]
        graph._lo = np.ascontiguousarray(np.minimum.reduceat(corners, first, axis=0))
        graph._hi = np.ascontiguousarray(np.maximum.reduceat(corners, first, axis=0))
        graph.view(LOCATE_KEY, LocateIndex)
        return graph


def _counter_clockwise(ground, start, verts) -> np.ndarray:
    """``verts`` with each polygon's corners counter-clockwise in the
    ground plane (reversed where clockwise); GraphError for a polygon that
    is not strictly convex there, or has no area."""
    owner = np.repeat(np.arange(len(start) - 1), np.diff(start))
    nxt = np.arange(1, len(verts) + 1)
    nxt[start[1:] - 1] = start[:-1]
    p, q = ground[verts], ground[verts[nxt]]
    first = np.repeat(ground[verts[start[:-1]]], np.diff(start), axis=0)
    cross = (p[:, 0] - first[:, 0]) * (q[:, 1] - first[:, 1]) \
        - (q[:, 0] - first[:, 0]) * (p[:, 1] - first[:, 1])
    area2 = np.add.reduceat(cross, start[:-1])
    scale = max(float(np.ptp(ground, axis=0).max()), 1e-300)
    flat = np.abs(area2) <= 1e-12 * scale * scale
    if flat.any():
        i = int(np.flatnonzero(flat)[0])
        raise GraphError(f"polygon {i} has no area in the ground plane: corners "
                         f"{verts[start[i]:start[i + 1]].tolist()}")
    sign = np.sign(area2)[owner]
    # convex: every turn (edge to next edge) bends the polygon's own way
    e = q - p
    e2 = e[nxt]
    turn = (e[:, 0] * e2[:, 1] - e[:, 1] * e2[:, 0]) * sign
    bad = turn < -1e-9 * scale * scale
    if bad.any():
        i = int(owner[np.flatnonzero(bad)[0]])
        raise GraphError(f"polygon {i} is not convex in the ground plane: corners "
                         f"{verts[start[i]:start[i + 1]].tolist()}")
    out = verts.copy()
    for i in np.flatnonzero(area2 < 0):        # reverse the clockwise ones
        out[start[i]:start[i + 1]] = verts[start[i]:start[i + 1]][::-1]
    return out


def _flat(graph, request) -> PathRequest:
    """``request`` with its ends in the ground plane (``ground_end``)."""
    s = graph.ground_end(request.start, request.start_node)
    t = graph.ground_end(request.goal, request.goal_node)
    return PathRequest(request.graph_id, s, t, request.algorithm, request.start_node,
                       request.goal_node, request.options)


def _per_node(request) -> bool:
    """Whether the request's path is a polygon-graph walk (a point per node)."""
    return request.algorithm in ("polygon_astar", "polygon_dijkstra")


def find_path(graph, request, answer):
    """``answer(request)`` (the navmesh plugin's dispatch) of ``request``
    with its ends in the ground plane, the path lifted back to 3D; on a
    graph with links, the exact search through them (``links``)."""
    if graph.links is not None:
        from . import links
        if request.algorithm in polyanya.NAMES:
            return links.find_path(graph, request)
        if links.refused(request):
            links.refuse(graph, request)
    result = answer(_flat(graph, request), graph)
    if result is None:
        return None
    return graph.lift(result, per_node=_per_node(request))


def begin_search(graph, request, begin):
    """A stepped search of ``request`` (``begin(flat_request)``: the
    plugin's own on the ground plane): ``LiftedSearch``, or on a graph
    with links ``links.LinkedSearch``."""
    if graph.links is not None:
        from . import links
        if request.algorithm in polyanya.NAMES:
            return links.LinkedSearch(graph, request)
        if links.refused(request):
            links.refuse(graph, request)
    return LiftedSearch(graph, request, begin)


class LiftedSearch(Search):
    """A stepped search on a layered mesh: the navmesh plugin's own
    (``begin(flat_request)``) on the ground plane, its results (partial
    ones too) lifted to 3D; begun again on the new mesh after an update."""

    def __init__(self, graph, request, begin):
        self._begin_flat = begin
        self._inner = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        self._inner = self._begin_flat(_flat(self.graph, self.request))

    def _advance(self, budget: int):
        inner = self._inner
        done = inner.step(budget)
        self.expanded = inner.expanded
        if done:
            return self.graph.lift(inner.result(), per_node=_per_node(self.request))
        return None

    def _partial(self):
        r = self._inner.result(partial=True)
        if r.status is not PathStatus.PARTIAL:
            return None
        return self.graph.lift(r, per_node=_per_node(self.request))

    def _release(self) -> None:
        inner = self._inner
        if inner is not None and not inner.done:
            inner.close()


def nearest_reachable(graph, point, start) -> int:
    """``World.nearest_reachable`` on a layered mesh: of the polygons
    ``start`` reaches, the one nearest the 3D ``point`` (3D distance to
    its nearest point)."""
    x, y, h = graph._point3(point, "point")
    csr = graph.csr
    return int(K.nearest_reachable(x, y, h, int(start), csr.offsets, csr.targets, csr.cost,
                                   graph.walkable, graph.vertices, graph.heights,
                                   graph.poly_start, graph.poly_verts,
                                   graph.locate_index().tol))


def lengths(measure, graph, sources, targets, source_points, target_points):
    """``World.distance_matrix`` / ``distance_pairs`` on a layered mesh:
    ``measure`` (the navmesh's ``matrix_lengths`` or ``pair_lengths``) on
    the ground plane, each 3D end at the ground point ``find_path`` starts
    from (``ground_points``) and searched from the polygon it was located
    on, so the lengths are ``find_path``'s costs. On a graph with off-mesh
    links, the walks ``find_path`` weighs and a Dijkstra over the links per
    source (``links.lengths``), equal to ``find_path``'s costs too."""
    if graph.links is not None:
        from . import links
        return links.lengths(graph, measure is polyanya.matrix_lengths, sources, targets,
                             source_points, target_points)
    return measure(graph, sources, targets, ground_points(graph, sources, source_points),
                   ground_points(graph, targets, target_points), seeded=True)


def ground_points(graph, nodes, points):
    """float64 ``(k, 2)`` ground points of the 3D ``points`` (``(k, 3)``,
    NaN rows: ends given as polygon ids, kept NaN) located on ``nodes``,
    as ``_end`` places a query end: the nearest point of the polygon,
    a hair inside it when clamped onto its boundary; ``None`` for none."""
    if points is None:
        return None
    out = np.full((len(points), 2), np.nan)
    given = np.flatnonzero(~np.isnan(points[:, 0]))
    if given.size:
        a, b, u = _AXES[graph.up]
        p = points[given]
        poly = np.empty(len(p), dtype=np.int32)
        xy = np.empty((len(p), 2))
        K.nearest_polys(np.ascontiguousarray(p[:, [a, b]]), np.ascontiguousarray(p[:, u]),
                        *graph._kernel_args(), graph._packed[3], *graph._packed[2], poly, xy)
        if not np.array_equal(poly, nodes[given]):      # World located them the same way
            raise QueryError("the ends moved between locating and measuring them")
        moved = (xy[:, 0] != p[:, a]) | (xy[:, 1] != p[:, b])
        c = graph.positions[poly]
        xy[moved] += 1e-9 * (c[moved, :2] - xy[moved])
        out[given] = xy
    return out


def warm_up(graph) -> None:
    """Compile the layered kernels on ``graph``'s arrays."""
    walk = np.flatnonzero(graph.walkable)
    if walk.size == 0:
        return
    p = int(walk[0])
    c = graph.positions[p]
    h = K.height_on(float(c[0]), float(c[1]), graph.vertices, graph.heights,
                    graph.poly_start, graph.poly_verts, p)
    graph.locate(graph._to_user(np.array([[c[0], c[1], h]]))[0])
    graph.nearest_polys(graph.points_on(np.array([p]), np.array([c[:2]])))
    end = (float(c[0]), float(c[1]))
    polyanya.shortest_path(graph, end, end, p, p)
    funnel.pull(graph, np.array([p], dtype=np.int32), end, end)
    buf = np.empty((4, 3))
    K.lift_path(graph.vertices, graph.heights, graph.poly_start, graph.poly_verts,
                graph.poly_adj, np.array([p], dtype=np.int32), np.array([c, c]), buf,
                np.empty(4, dtype=np.int32))
    for heights in (_NO_HEIGHTS, buf[:, 2].copy()):
        K.user_points(buf, heights, *_AXES[graph.up])
    _corner_at(float(c[0]), float(c[1]), p, graph.vertices, graph.poly_start,
               graph.poly_verts)                      # end_nodes (the areas' pre-check)
    if graph.links is not None and len(graph.links):
        from ._links import link_bounds, on_corner
        on_corner(np.array([[c[0], c[1]]]), np.array([p], dtype=np.int64), graph.vertices,
                  graph.poly_start, graph.poly_verts, np.empty(1, dtype=np.bool_))
        # a linked query's bounds (``links.LinkedQuery``): start, goal, one link
        link_bounds(np.zeros((4, 2)), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.bool_),
                    np.ones(1), np.empty(4), np.empty(4))

