"""``NavMeshGraph``: one node per convex polygon of a navmesh.

The mesh is stored as flat arrays, the layout Polyanya and Detour use:
polygon ``p`` has the counter-clockwise vertex ids
``poly_verts[poly_start[p]:poly_start[p + 1]]``; edge ``j`` (a position in
``poly_verts``) runs from its vertex to the next one of the same polygon,
and ``poly_adj[j]`` is the polygon across it (``-1``: a wall).

Node positions are the polygon centroids; two nodes are joined (both ways)
when their polygons share an edge, at the distance between the centroids,
so the generic csr searches (as ``polygon_astar`` and ``polygon_dijkstra``:
``polygon_search``) and the hierarchy work on the polygon
graph unchanged. ``locate`` finds the polygon
holding a point through a bucket grid (a derived view, ``LocateIndex``).
"""
from __future__ import annotations

import math

import numpy as np
import shapely

import navcore
from navcore import limits, validate
from navcore.errors import GraphError, NodeError
from navcore.graph import build_storage

from . import _locate as K

#: where a navmesh keeps its locate index (``graph.view(LOCATE_KEY)``)
LOCATE_KEY = "navcore_navmesh.locate"


def next_edge(poly_start, num_edges):
    """int32 ``(E,)``: the edge after each edge in its polygon (its second
    vertex's position), wrapping at the polygon's end."""
    nxt = np.arange(1, num_edges + 1, dtype=np.int64)
    nxt[poly_start[1:] - 1] = poly_start[:-1]
    return nxt.astype(np.int32)


def prev_edge(poly_start, num_edges):
    """int64 ``(E,)``: the edge before each edge in its polygon (the one
    ending at its vertex), the inverse of ``next_edge``."""
    prev = np.empty(num_edges, dtype=np.int64)
    prev[next_edge(poly_start, num_edges)] = np.arange(num_edges)
    return prev


def size_scale(vertices) -> float:
    """The length a mesh's tolerances are relative to (``LocateIndex.tol``,
    the search's ``eps``/``geps``, the default ``snap_distance``): its
    extent, so that a mesh and the same mesh scaled answer alike; but not
    below what rounding at its coordinates' magnitude ``C`` asks for (a
    cross product of extent-long vectors there is off by about
    ``1e-16 * C * extent``, which ``1e-12 * scale ** 2`` must exceed). A
    floor of 1.0 would make every tolerance absolute below that size: a
    mesh a hundred-thousandth wide would see all its corners collinear."""
    v = np.asarray(vertices, dtype=np.float64)
    if v.size == 0:
        return 1.0
    extent = float(np.ptp(v, axis=0).max())
    scale = max(extent, 1e-2 * float(np.sqrt(extent * np.abs(v).max())))
    return scale if scale > 0 and np.isfinite(scale) else 1.0


def default_snap_distance(vertices) -> float:
    """A graph's ``snap_distance`` unless told otherwise: a millionth of
    the mesh's size (``size_scale``)."""
    return 1e-6 * size_scale(vertices)


def match_edges(poly_start, poly_verts, num_vertices):
    """``(adj, opposite)``, int32 ``(E,)`` each: the polygon across each
    edge and that edge's position in the other polygon, ``-1`` for walls.
    Edges are matched by sorting their vertex-pair keys; an edge that three
    polygons share is a broken mesh (GraphError)."""
    e = len(poly_verts)
    a = poly_verts.astype(np.int64)
    b = a[next_edge(poly_start, e)]
    key = np.minimum(a, b) * num_vertices + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    k = key[order]
    same = np.flatnonzero(k[1:] == k[:-1])
    if same.size and np.any(np.diff(same) == 1):
        i = same[np.flatnonzero(np.diff(same) == 1)[0]]
        j = order[i]
        raise GraphError(f"the mesh edge between vertices {a[j]} and {b[j]} belongs to "
                         f"more than two polygons")
    owner = np.repeat(np.arange(len(poly_start) - 1, dtype=np.int32), np.diff(poly_start))
    adj = np.full(e, -1, dtype=np.int32)
    opposite = np.full(e, -1, dtype=np.int32)
    e1, e2 = order[same], order[same + 1]
    adj[e1], adj[e2] = owner[e2], owner[e1]
    opposite[e1], opposite[e2] = e2, e1
    return adj, opposite


def centroids(vertices, poly_start, poly_verts):
    """float64 ``(P, 2)``: the area centroid of each polygon."""
    p = vertices[poly_verts]
    q = vertices[poly_verts[next_edge(poly_start, len(poly_verts))]]
    # shoelace terms relative to each polygon's first vertex: well
    # conditioned far from the origin
    first = np.repeat(vertices[poly_verts[poly_start[:-1]]], np.diff(poly_start), axis=0)
    p, q = p - first, q - first
    cr = p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]
    starts = poly_start[:-1]
    area3 = np.add.reduceat(cr, starts) * 3.0
    cx = np.add.reduceat((p[:, 0] + q[:, 0]) * cr, starts) / area3
    cy = np.add.reduceat((p[:, 1] + q[:, 1]) * cr, starts) / area3
    return np.stack([cx, cy], axis=1) + vertices[poly_verts[starts]]


def polygons_union(vertices, poly_start, poly_verts):
    """The shapely union of the mesh's polygons: the free space it covers."""
    owner = np.repeat(np.arange(len(poly_start) - 1), np.diff(poly_start))
    rings = shapely.linearrings(np.asarray(vertices, dtype=np.float64)[poly_verts],
                                indices=owner)
    return shapely.union_all(shapely.polygons(rings))


def index_xy(x, y) -> tuple:
    """A locate index's point: two finite floats (Python floats pass
    with two checks: the queries' own calls)."""
    if type(x) is float and type(y) is float and math.isfinite(x) and math.isfinite(y):
        return x, y
    if validate.is_int(x) and validate.is_int(y):
        return validate.xy((x, y), "a point")
    if not (isinstance(x, (float, np.floating)) and isinstance(y, (float, np.floating))):
        raise NodeError(f"a point's x and y must be numbers, got {x!r} and {y!r}")
    return validate.xy((float(x), float(y)), "a point")


def plain_xy(where):
    """``(x, y)``, two finite Python floats, when ``where`` is a point as
    games pass it: a tuple or list of two Python numbers (``validate.xy``
    reads those without an array) or a 1-d float array of two; ``None``
    for anything else (a node id; a point the caller checks the long
    way, which also says what is wrong with it)."""
    kind = type(where)
    if kind is tuple or kind is list:
        if len(where) == 2:
            x, y = where
            if type(x) is float and type(y) is float:
                return (x, y) if _isfinite(x) and _isfinite(y) else None
            try:
                return validate.xy(where)
            except NodeError:
                return None
    elif kind is _NDARRAY and (where.dtype is _FLOAT64 or where.dtype.kind == "f") \
            and where.shape == (2,):
        x, y = where.tolist()
        if _isfinite(x) and _isfinite(y):
            return x, y
    return None


# (module names: plain_xy runs four times a query; float64, the usual
# dtype, is one identity test before the kind is asked)
_NDARRAY = np.ndarray
_FLOAT64 = np.dtype(np.float64)
_isfinite = math.isfinite


def index_radius(radius) -> float:
    """A search radius: a number >= 0, inf for no limit."""
    if type(radius) is float and radius >= 0:
        return radius
    if isinstance(radius, (float, np.floating)) and radius == math.inf:
        return math.inf
    return validate.distance(radius, "radius", NodeError)


def index_points(points) -> np.ndarray:
    """``(k, 2)`` finite float64 points (one point alone as ``(2,)``)."""
    p = validate.array(points, "points", NodeError)
    if p.ndim == 1 and p.shape == (2,):
        p = p.reshape(1, 2)
    if p.size == 0:
        return np.empty((0, 2))
    if p.dtype.kind not in "iuf":
        raise NodeError(f"points must be (k, 2) numbers, got dtype {p.dtype}")
    return np.ascontiguousarray(validate.points(p.astype(np.float64), error=NodeError))


class LocateIndex(navcore.DerivedView):
    """A uniform bucket grid over the mesh: each cell lists (by ascending
    id) the polygons whose bounding box overlaps it. Cells are about the
    mean polygon size, so a point tests a handful of polygons: O(1) on
    average. It depends on the geometry only, which updates of walkable
    flags or costs leave alone (the plugin marks it current after them)."""

    def __init__(self, graph):
        super().__init__(graph)
        v, starts = graph.vertices, graph.poly_start[:-1]
        corners = v[graph.poly_verts]
        lo = np.minimum.reduceat(corners, starts, axis=0)
        hi = np.maximum.reduceat(corners, starts, axis=0)
        n = len(starts)
        self.origin = v.min(axis=0)
        self.x0, self.y0 = float(self.origin[0]), float(self.origin[1])
        extent = v.max(axis=0) - self.origin
        size = max(float(np.sqrt(np.mean((hi - lo).prod(axis=1)))), 1e-9)
        # at most about 4 cells per polygon, whatever the polygons' shapes
        size = max(size, float(np.sqrt(max(extent[0] * extent[1], 1e-18) / (4 * n))))
        # and at most 4n + 1 along each side, also when the mesh is a sliver
        # whose area is next to nothing (the area bound alone then allows
        # billions of cells along its length)
        size = max(size, float(extent.max()) / (4 * n))
        self.inv = 1.0 / size
        self.nx = max(int(np.floor(extent[0] * self.inv)) + 1, 1)
        self.ny = max(int(np.floor(extent[1] * self.inv)) + 1, 1)
        # orientation tests within this of zero count as on the edge, so a
        # point on a shared edge is in both polygons whatever the rounding
        self.tol = 1e-12 * size_scale(v) ** 2
        c0 = np.floor((lo - self.origin) * self.inv).astype(np.int64)
        c1 = np.floor((hi - self.origin) * self.inv).astype(np.int64)
        c0 = np.minimum(c0, [self.nx - 1, self.ny - 1])
        c1 = np.minimum(c1, [self.nx - 1, self.ny - 1])
        wx, wy = c1[:, 0] - c0[:, 0] + 1, c1[:, 1] - c0[:, 1] + 1
        count = wx * wy
        pid = np.repeat(np.arange(n, dtype=np.int64), count)
        # k-th cell of each polygon's box, without a per-polygon loop
        k = np.arange(pid.size) - np.repeat(np.cumsum(count) - count, count)
        cx = c0[pid, 0] + k % wx[pid]
        cy = c0[pid, 1] + k // wx[pid]
        cell = cy * self.nx + cx
        order = np.lexsort((pid, cell))                    # by cell, then id
        self.cell_polys = pid[order].astype(np.int32)
        self.cell_start = np.zeros(self.nx * self.ny + 1, dtype=np.int64)
        np.cumsum(np.bincount(cell, minlength=self.nx * self.ny),
                  out=self.cell_start[1:])

    def locate_point(self, x: float, y: float) -> int:
        """The walkable polygon holding ``(x, y)``, -1 where none does."""
        x, y = index_xy(x, y)
        return self._locate_xy(x, y)

    def _locate_xy(self, x: float, y: float) -> int:
        """``locate_point`` of two finite Python floats (unchecked)."""
        g = self.graph
        return K.locate_point(x, y, g.vertices, g.poly_start, g.poly_verts, g.walkable,
                              self.cell_start, self.cell_polys, self.x0, self.y0, self.inv,
                              self.nx, self.ny, self.tol)

    def nearest(self, x: float, y: float, radius: float):
        """``(polygon, px, py)``: the nearest walkable polygon within
        ``radius`` and its point nearest ``(x, y)``; ``(-1, x, y)``."""
        x, y = index_xy(x, y)
        radius = index_radius(radius)
        g = self.graph
        return K.nearest_point(x, y, radius, g.vertices, g.poly_start, g.poly_verts,
                               g.walkable, self.cell_start, self.cell_polys, self.x0,
                               self.y0, self.inv, self.nx, self.ny)

    def _locate_pair(self, ax: float, ay: float, bx: float, by: float, snap: float):
        """``(s, t)``: ``NavMeshGraph.locate`` of two points in one kernel
        call (a query's ends), off the mesh within ``snap`` taken to the
        nearest walkable polygon; four finite Python floats and a float
        ``snap`` (unchecked)."""
        g = self.graph
        return K.locate_pair(ax, ay, bx, by, snap, g.vertices, g.poly_start, g.poly_verts,
                             g.walkable, self.cell_start, self.cell_polys, self.x0, self.y0,
                             self.inv, self.nx, self.ny, self.tol)

    def locate_many(self, points) -> np.ndarray:
        p = index_points(points)
        out = np.empty(len(p), dtype=np.int32)
        g = self.graph
        K.locate_points(np.ascontiguousarray(p[:, 0]), np.ascontiguousarray(p[:, 1]),
                        g.vertices, g.poly_start, g.poly_verts, g.walkable, self.cell_start,
                        self.cell_polys, self.x0, self.y0, self.inv, self.nx, self.ny,
                        self.tol, out)
        return out


class NavMeshGraph(navcore.NavGraph):
    """A convex-polygon navmesh as a NavGraph: node ``p`` is polygon ``p``.

    Attributes (read-only by convention; ``replace_mesh`` replaces the
    mesh arrays, centroids, walkable mask and CSR view together):

    * ``vertices`` float64 ``(V, 2)``;
    * ``poly_start`` int32 ``(P + 1,)``, ``poly_verts`` int32 ``(E,)``:
      polygon ``p``'s counter-clockwise (positive signed area in (x, y))
      vertex ids are ``poly_verts[poly_start[p]:poly_start[p + 1]]``;
    * ``poly_adj`` int32 ``(E,)``: the polygon across edge ``j`` (from
      ``poly_verts[j]`` to the next vertex of its polygon), ``-1`` a wall;
    * ``poly_opposite`` int32 ``(E,)``: that edge's position in the
      polygon across, ``-1`` for a wall;
    * ``poly_next`` int32 ``(E,)``: the next edge of the same polygon;
    * ``corner`` bool ``(V,)``: the vertex ends a wall edge, so a shortest
      path may turn there (elsewhere it never needs to);
    * ``free_space``: the shapely geometry the mesh covers: the one it
      was built from (on a mesh built in tiles, as updates left it), or (a
      mesh read from a file or arrays) the union of its polygons, computed
      on first use and again after the polygon arrays are replaced;
    * ``snap_distance``: how far off the mesh a point may lie and still be
      taken as the nearest point of it (``locate``, query ends): by default
      a millionth of the mesh's size (rounding), plus the agent radius for
      meshes shrunk by one (a unit standing against a wall is that far
      outside its shrunk mesh);
    * ``agent_radius``: the radius the free space was eroded by (``0.0``);
    * ``ground``: the free space before that erosion, the place as the map
      draws it (``None`` when unknown; then it is ``free_space``);
    * ``tiles``: the ``navcore_navmesh.tiles.TiledMesh`` of a mesh built in
      tiles (``None`` for one made from arrays). Such a mesh may have
      retired slots: node ids whose polygon is empty (``poly_start[p] ==
      poly_start[p + 1]``), never walkable, without edges.
    """

    agent_radius = 0.0
    ground = None
    #: per-vertex heights of a layered (3D) mesh (``layered.LayeredMeshGraph``)
    heights = None
    #: edge costs join polygon centroids: path lengths come from polyanya
    edge_costs_are_lengths = False
    #: the tile state of a mesh built in tiles (see ``tiles.py``)
    tiles = None
    _free_space = None
    _free_space_of = None         # the arrays the computed union belongs to

    @property
    def free_space(self):
        if self.tiles is not None:
            return self.tiles.free_space()
        if self._free_space is not None:
            return self._free_space
        arrays = (self.vertices, self.poly_start, self.poly_verts)
        cached = self._free_space_of
        if cached is None or any(a is not b for a, b in zip(cached[0], arrays)):
            self._free_space_of = (arrays, polygons_union(*arrays))
        return self._free_space_of[1]

    @free_space.setter
    def free_space(self, value):
        self._free_space = value

    @classmethod
    def from_polygons(cls, vertices, poly_start, poly_verts, free_space=None, world=None):
        """A graph over mesh arrays: ``vertices`` ``(V, 2)``, polygon ``p``
        the vertex ids ``poly_verts[poly_start[p]:poly_start[p + 1]]``,
        counter-clockwise and convex. ``GraphError`` says what is wrong
        with them (the checks of ``meshcheck``, O(size) numpy)."""
        from .meshcheck import Where, check_mesh
        vertices = validate.array(vertices, "vertices", GraphError, np.float64)
        if vertices.ndim != 2 or vertices.shape[1] != 2 or len(vertices) < 3:
            raise GraphError(f"vertices must have shape (V, 2) with V >= 3, got "
                             f"{vertices.shape}")
        bad = ~(np.abs(vertices) <= limits.MAX_COORDINATE).all(axis=1)      # NaN fails too
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise GraphError(f"vertices[{i}] is not finite or lies beyond "
                             f"±{limits.MAX_COORDINATE:g}: {vertices[i].tolist()}")
        poly_verts = validate.node_ids(poly_verts, len(vertices), "poly_verts", GraphError,
                                       np.int64)
        poly_start = validate.node_ids(poly_start, len(poly_verts) + 1, "poly_start",
                                       GraphError, np.int64)
        if len(poly_start) < 2 or poly_start[0] != 0 or poly_start[-1] != len(poly_verts) \
                or (np.diff(poly_start) < 3).any():
            raise GraphError(f"poly_start must rise from 0 to len(poly_verts) = "
                             f"{len(poly_verts)} by at least 3 corners a polygon, got "
                             f"{poly_start.tolist()[:12]}")
        if free_space is not None and not isinstance(free_space, shapely.Geometry):
            raise GraphError(f"free_space must be a shapely geometry or None, got "
                             f"{validate.describe(free_space)}")
        if world is not None and not isinstance(world, navcore.World):
            raise GraphError(f"world must be a navcore.World or None, got {world!r}")
        mesh = check_mesh(vertices, poly_start, poly_verts, Where(GraphError), may_reverse=False)
        return cls._from_checked(mesh.vertices, mesh.poly_start, mesh.poly_verts, free_space,
                                world)

    @classmethod
    def _from_checked(cls, vertices, poly_start, poly_verts, free_space=None, world=None):
        """``from_polygons`` of arrays ``build`` or a mesh reader checked."""
        vertices = np.ascontiguousarray(vertices, dtype=np.float64)
        poly_start = np.ascontiguousarray(poly_start, dtype=np.int32)
        poly_verts = np.ascontiguousarray(poly_verts, dtype=np.int32)
        adj, opposite = match_edges(poly_start, poly_verts, len(vertices))
        n = len(poly_start) - 1
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(poly_start))
        keep = adj >= 0                 # each shared edge once from each side
        src, dst = owner[keep], adj[keep].astype(np.int64)
        mid = centroids(vertices, poly_start, poly_verts)
        cost = np.sqrt(((mid[src] - mid[dst]) ** 2).sum(axis=1))
        storage = build_storage(src, dst, {"cost": cost}, n, world=world)
        graph = cls(storage, positions=mid, heuristic="euclidean", directed=False)
        graph.replace_mesh(vertices, poly_start, poly_verts, csr=storage,
                           positions=graph.positions, walkable=graph.walkable,
                           poly_adj=adj, poly_opposite=opposite)
        graph.free_space = free_space
        graph.snap_distance = default_snap_distance(vertices)
        return graph

    def replace_mesh(self, vertices, poly_start, poly_verts, *, csr, positions, walkable,
                     poly_adj, poly_opposite, poly_next=None, corner=None) -> None:
        """Make these arrays the graph's mesh, all at once (see the class
        docstring for each): the polygons, the CSR view ``csr`` of their
        adjacency (one node per polygon slot), the node ``positions``
        (``(P, 2)``) and ``walkable`` mask. ``poly_next`` and ``corner``
        are derived from the others when not given. The graph keeps the
        arrays (no copies; nobody may write them afterwards), so they must
        have the kernels' dtypes: float64 ``vertices`` and ``positions``,
        int32 polygon arrays, bool ``walkable`` and ``corner``; sizes and
        ids are checked (``GraphError``, and nothing changes), convexity
        and orientation are not (``from_polygons`` checks those).

        A mesh is replaced inside an update batch (``begin_write`` ..
        ``end_write``, as ``World.tick`` brackets ``navcore_apply_updates``;
        the batch bumps ``version`` once, which makes the views built on
        the old arrays stale), or before the graph is shared; called outside
        a batch it brackets itself, so a ``read_consistent`` reader on
        another thread never sees half the arrays old and half new. Views
        that key on the arrays themselves (the computed ``free_space``, the
        search space's ``same_geometry``) see them replaced by identity."""
        vertices = _exact(vertices, "vertices", np.float64, 2)
        poly_start = _exact(poly_start, "poly_start", np.int32, 1)
        poly_verts = _exact(poly_verts, "poly_verts", np.int32, 1)
        poly_adj = _exact(poly_adj, "poly_adj", np.int32, 1)
        poly_opposite = _exact(poly_opposite, "poly_opposite", np.int32, 1)
        positions = _exact(positions, "positions", np.float64, 2)
        walkable = _exact(walkable, "walkable", np.bool_, 1)
        nv, e, n = len(vertices), len(poly_verts), len(poly_start) - 1
        if n < 0 or poly_start[0] != 0 or poly_start[-1] != e or (np.diff(poly_start) < 0).any():
            raise GraphError(f"replace_mesh: poly_start must rise from 0 to len(poly_verts) "
                             f"= {e}, got {poly_start.tolist()[:12]}")
        if poly_next is None:
            poly_next = next_edge(poly_start, e)
        poly_next = _exact(poly_next, "poly_next", np.int32, 1)
        if corner is not None:
            corner = _exact(corner, "corner", np.bool_, 1)
        nodes = getattr(csr, "num_nodes", None)
        sizes = {"vertices": (vertices.shape, (nv, 2)), "positions": (positions.shape, (n, 2)),
                 "walkable": (walkable.shape, (n,)), "poly_adj": (poly_adj.shape, (e,)),
                 "poly_opposite": (poly_opposite.shape, (e,)),
                 "poly_next": (poly_next.shape, (e,)),
                 "csr.num_nodes": (nodes if type(nodes) is int else repr(nodes), n)}
        if corner is not None:
            sizes["corner"] = (corner.shape, (nv,))
        wrong = [f"{k} {got}, expected {want}" for k, (got, want) in sizes.items() if got != want]
        if wrong:
            raise GraphError(f"replace_mesh: arrays of different sizes for {n} polygons, "
                             f"{e} edges and {nv} vertices: {'; '.join(wrong)}")
        for what, arr, lo, hi in (("poly_verts", poly_verts, 0, nv),
                                  ("poly_adj", poly_adj, -1, n),
                                  ("poly_opposite", poly_opposite, -1, e),
                                  ("poly_next", poly_next, 0, e)):
            if e and (arr.min() < lo or arr.max() >= hi):
                bad = int(np.flatnonzero((arr < lo) | (arr >= hi))[0])
                raise GraphError(f"replace_mesh: {what}[{bad}] = {arr[bad]} is not in "
                                 f"[{lo}, {hi})")
        if corner is None:
            # a vertex ends a wall edge: a shortest path may turn there
            wall = poly_adj < 0
            corner = np.zeros(nv, dtype=np.bool_)
            corner[poly_verts[wall]] = True
            corner[poly_verts[poly_next[wall]]] = True
        if self.writing_here():
            self._install(vertices, poly_start, poly_verts, csr, positions, walkable,
                          poly_adj, poly_opposite, poly_next, corner)
            return
        self.begin_write()
        try:
            self._install(vertices, poly_start, poly_verts, csr, positions, walkable,
                          poly_adj, poly_opposite, poly_next, corner)
        finally:
            self.end_write()

    def _install(self, vertices, poly_start, poly_verts, csr, positions, walkable, poly_adj,
                 poly_opposite, poly_next, corner) -> None:
        self.set_csr(csr)
        self.num_nodes = len(poly_start) - 1
        # NavGraph keeps the node positions there (``positions``,
        # ``has_positions``); a navmesh's are its polygons' centroids
        self._positions = positions
        self.walkable = walkable
        self.vertices = vertices
        self.poly_start = poly_start
        self.poly_verts = poly_verts
        self.poly_adj = poly_adj
        self.poly_opposite = poly_opposite
        self.poly_next = poly_next
        self.corner = corner

    @classmethod
    def from_triangles(cls, vertices, triangles, free_space=None, world=None):
        """A graph over ``(T, 3)`` counter-clockwise triangles."""
        triangles = validate.array(triangles, "triangles", GraphError)
        if triangles.ndim != 2 or triangles.shape[1] != 3:
            raise GraphError(f"triangles must have shape (T, 3), got {triangles.shape}")
        t = len(triangles)
        return cls.from_polygons(vertices, np.arange(0, 3 * t + 1, 3), triangles.ravel(),
                                 free_space, world)

    @property
    def num_polygons(self) -> int:
        return len(self.poly_start) - 1

    def polygon(self, p) -> np.ndarray:
        """The counter-clockwise vertex ids of polygon ``p``."""
        p = validate.node_id(p, self.num_polygons, "polygon")
        return self.poly_verts[self.poly_start[p]:self.poly_start[p + 1]]

    def polygon_points(self, p) -> np.ndarray:
        """float64 ``(k, 2)``: polygon ``p``'s corners, counter-clockwise."""
        return self.vertices[self.polygon(p)]

    def locate_index(self) -> LocateIndex:
        """The current locate index (made again if the geometry's version
        moved on without the plugin marking it current)."""
        return self.view(LOCATE_KEY, _new_locate_index)

    def locate(self, point) -> int:
        """The polygon holding ``point`` (on an edge or corner: the lowest
        id of the polygons holding it); off the mesh, the nearest walkable
        polygon within ``snap_distance``; else ``-1``."""
        x, y = validate.xy(point, "a node id or a point")
        return self._locate_xy(x, y)

    def _locate_xy(self, x: float, y: float) -> int:
        """``locate`` of two finite Python floats."""
        index = self.view(LOCATE_KEY, _new_locate_index)
        p = index._locate_xy(x, y)
        if p < 0 and self.snap_distance > 0:
            p = index.nearest(x, y, self.snap_distance)[0]
        return p

    def nodes_of(self, start, goal) -> tuple:
        """``(node_of(start), node_of(goal))``, two points as games pass
        them (``plain_xy``) located in one kernel call."""
        a = plain_xy(start)
        b = plain_xy(goal)
        snap = self.snap_distance
        if a is None or b is None or type(snap) is not float:
            return self.node_of(start), self.node_of(goal)
        return self.view(LOCATE_KEY, _new_locate_index)._locate_pair(a[0], a[1], b[0], b[1], snap)

    def node_of(self, where) -> int:
        # a point as games pass it (a tuple or list of two numbers, a
        # float array of two) goes straight to the locate index:
        # NavGraph.node_of would first ask whether it is an integer (an
        # abstract-class check), and a float array would be copied and
        # checked as an array of points
        xy = plain_xy(where)
        if xy is not None:
            return self._locate_xy(*xy)
        return super().node_of(where)

    def end_nodes(self, end, node):
        """The walkable polygons around the corner of polygon ``node`` that
        the point ``end`` lies exactly on, when there is one (two regions
        that touch at a corner both hold a point there: ``NavGraph.end_nodes``);
        ``None`` for a polygon id or a point off every corner."""
        if not (type(node) is int or validate.is_int(node)):
            raise NodeError(f"end_nodes: node must be a polygon id (an integer), got "
                            f"{validate.describe(node)}")
        xy = plain_xy(end)
        if xy is None or not (0 <= node < self.num_polygons):
            return None
        # on every query's path (the areas' pre-check): one kernel call
        # tells the usual answer, a point off every corner
        at = K.corner_at(xy[0], xy[1], int(node), self.vertices, self.poly_start,
                         self.poly_verts)
        if at < 0:
            return None
        around = np.searchsorted(self.poly_start, np.flatnonzero(self.poly_verts == at),
                                 side="right") - 1
        return np.unique(around[self.walkable[around]]).astype(np.int32)

    def on_mesh(self, point) -> tuple[float, float]:
        """``point`` if the mesh holds it, else the nearest walkable point
        within ``snap_distance`` (``NodeError`` when there is none): where
        a path from or to ``point`` starts or ends."""
        x, y = validate.xy(point, "a point")
        index = self.locate_index()
        if index.locate_point(x, y) >= 0:
            return x, y
        p, px, py = index.nearest(x, y, self.snap_distance)
        if p < 0:
            raise navcore.NodeError(f"point {point!r} lies more than {self.snap_distance:g} "
                                    f"off the navmesh")
        return px, py

    def locate_many(self, points) -> np.ndarray:
        """int32 polygon per point of ``points`` (``(k, 2)``), as
        ``locate`` gives it (``-1`` off the mesh)."""
        p = validate.points(points)
        index = self.locate_index()
        out = index.locate_many(p)
        if self.snap_distance > 0:
            for i in np.flatnonzero(out < 0):        # only the few points off the mesh
                out[i] = index.nearest(float(p[i, 0]), float(p[i, 1]), self.snap_distance)[0]
        return out


def _exact(value, what, dtype, ndim) -> np.ndarray:
    """``value`` when it is a C-contiguous ``dtype`` array of ``ndim``
    dimensions (what the kernels take without a copy), else GraphError."""
    if type(value) is not np.ndarray or value.dtype != dtype or value.ndim != ndim \
            or not value.flags.c_contiguous:
        got = (f"a {value.dtype} array of shape {value.shape}" if isinstance(value, np.ndarray)
               else validate.describe(value))
        raise GraphError(f"replace_mesh: {what} must be a C-contiguous {np.dtype(dtype)} "
                         f"array of {ndim} dimension{'s' if ndim > 1 else ''}, got {got}")
    return value


def _new_locate_index(graph):
    """The locate index ``graph.locate_index()`` builds when none is
    current: a tiled mesh's own kind (its cells follow the tiles), else a
    ``LocateIndex``."""
    if graph.tiles is not None:
        return graph.tiles.locate_index(graph)
    return LocateIndex(graph)
