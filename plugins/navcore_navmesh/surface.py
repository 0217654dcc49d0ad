"""A navmesh's answers to the crowd hooks: its walls as RVO2 obstacle
rings (``navcore_walls``), Detour's ``moveAlongSurface`` for many points
at once (``navcore_move_along_surface``) and Detour's
``findLocalNeighbourhood`` (``navcore_local_neighbourhood``).

On a layered (3D) mesh the storeys overlap in the ground plane: its walls
name the polygon whose side each edge is (a crowd takes an agent's walls
from the polygons of its neighbourhood only, never those of the floor
above or below), and a move starts from the polygon given and follows
the polygons' shared sides. Kernels in ``_surface``."""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import QueryError

from . import _surface as K
from .mesh import size_scale
from .meshqueries import AREAS_KEY, PolygonAreas, _VISITED_KEY, _visited
from .tiles import BORDER_EPS

#: how far (relative to the mesh's size) a move that meets a wall stays
#: off it, on the walkable side, before it slides
NUDGE = 1e-9


#: the most polygons of one point's neighbourhood (``local_neighbourhood``)
MAX_LOCAL = 32


def walls(graph):
    """``navcore_walls`` on a navmesh: the sides of walkable polygons with
    no walkable polygon across, as closed rings with the walkable polygons
    on the right (``_surface.mesh_walls``). Blocked polygons are solid; so
    is a polygon an obstacle update re-triangulated away: the rings follow
    the mesh arrays of ``graph.version``. On a 2D mesh collinear runs are
    merged and the answer is ``(vertices, ring_start)``; on a layered
    mesh every edge is one polygon's side, and the answer adds ``owner``,
    that polygon (one storey's rings cross another's in the ground
    plane)."""
    layered = graph.heights is not None
    verts, ring_start, owner = K.mesh_walls(graph.vertices, graph.poly_start,
                                            graph.poly_verts, graph.poly_adj, graph.poly_next,
                                            graph.walkable, not layered)
    return (verts, ring_start, owner) if layered else (verts, ring_start)


def _cells(graph):
    """The locate index's bucket grid as ``_tiles.locate_one`` reads it:
    ``(cell_start, cell_polys, x0, y0, inv, k, ntx, nty, tol, eps)``; a
    plain index is a tiled one of one cell a tile (numbered alike, and
    looking into a neighbour cell finds only polygons that are listed in
    their own cells too)."""
    index = graph.locate_index()
    if graph.tiles is not None:
        grid = graph.tiles.grid
        return (index.cell_start, index.cell_polys, float(grid.x0), float(grid.y0),
                float(index.inv), int(index.k), int(grid.nx), int(grid.ny), float(index.tol),
                float(BORDER_EPS))
    return (index.cell_start, index.cell_polys, float(index.x0), float(index.y0),
            float(index.inv), 1, int(index.nx), int(index.ny), float(index.tol), 0.0)


def move_along_surface(graph, start, nodes, end):
    """``navcore_move_along_surface`` on a 2D navmesh, in one kernel call
    (``_surface.move_many``): a start's node is used when it is a walkable
    polygon holding the start, else the start is located again (a node a
    crowd kept from before an update that blocked or re-triangulated it).
    On a layered mesh (``_surface.move_many_on``) the start's polygon is
    the one given, whose shared sides the move follows (a ground point
    alone does not say which storey it is on); a start given ``-1`` or a
    blocked polygon stays, node ``-1``."""
    s, n, e = validate.surface_moves(start, nodes, end, graph.num_nodes)
    points = np.empty_like(s)
    out = np.empty(s.shape[0], dtype=np.int32)
    if graph.heights is not None:
        index = graph.locate_index()
        K.move_many_on(s, n, e, graph.vertices, graph.poly_start, graph.poly_verts,
                       graph.poly_adj, graph.poly_opposite, graph.walkable, float(index.tol),
                       _nudge(graph, index), points, out,
                       graph.scratch(_VISITED_KEY, _visited))
        return points, out
    areas = graph.view(AREAS_KEY, PolygonAreas)
    box = np.array([areas.lo[0], areas.lo[1], areas.hi[0], areas.hi[1]], dtype=np.float64)
    K.move_many(s, n, e, graph.vertices, graph.poly_start, graph.poly_verts, graph.poly_adj,
                graph.poly_opposite, graph.walkable, *_cells(graph), box,
                NUDGE * size_scale(box.reshape(2, 2)), points, out,
                graph.scratch(_VISITED_KEY, _visited))
    return points, out


def _nudge(graph, index):
    """How far a move on a layered mesh stays off a wall it meets
    (``NUDGE`` of the vertices' extent), kept on the locate index: the
    box of every vertex costs more than a crowd's whole move, and the
    index is made again when the geometry changes."""
    nudge = getattr(index, "move_nudge", None)
    if nudge is None:
        nudge = index.move_nudge = NUDGE * size_scale(_box(graph).reshape(2, 2))
    return nudge


def _box(graph):
    """The vertices' ground box ``(xmin, ymin, xmax, ymax)``."""
    v = graph.vertices
    return np.concatenate([v.min(axis=0), v.max(axis=0)]).astype(np.float64)


def _stamps(graph):
    return np.zeros(graph.num_nodes + 1, dtype=np.int64)


_STAMP_KEY = "navcore_navmesh.local_stamps"


def local_neighbourhood(graph, points, nodes, radius):
    """``navcore_local_neighbourhood`` on a navmesh (2D or layered), in one
    kernel call (``_surface.local_neighbourhoods``): ``(start, polygons)``,
    at most ``MAX_LOCAL`` polygons a point."""
    p = np.ascontiguousarray(validate.points(points, "local_neighbourhood: points", QueryError))
    _, n, _ = validate.surface_moves(p, nodes, p, graph.num_nodes, call="local_neighbourhood")
    r = validate.array(radius, "local_neighbourhood: radius", QueryError, np.float64)
    if r.ndim == 0:
        r = np.full(len(p), float(r))
    if r.shape != (len(p),) or not (np.isfinite(r) & (r >= 0)).all():
        raise QueryError(f"local_neighbourhood: radius must be one finite number >= 0, or "
                         f"one per point ({len(p)}), got {validate.describe(radius)}")
    start = np.empty(len(p) + 1, dtype=np.int64)
    out = np.empty(len(p) * MAX_LOCAL, dtype=np.int32)
    k = K.local_neighbourhoods(p, n, np.ascontiguousarray(r), graph.vertices, graph.poly_start,
                               graph.poly_verts, graph.poly_adj, graph.walkable,
                               float(graph.locate_index().tol), MAX_LOCAL, start, out,
                               graph.scratch(_STAMP_KEY, _stamps))
    return start, out[:k]


def warm_up(graph) -> None:
    """Compile the kernels on ``graph``'s arrays (no points to move)."""
    walls(graph)
    move_along_surface(graph, np.empty((0, 2)), np.empty(0, dtype=np.int32),
                       np.empty((0, 2)))
    local_neighbourhood(graph, np.empty((0, 2)), np.empty(0, dtype=np.int32), 1.0)
