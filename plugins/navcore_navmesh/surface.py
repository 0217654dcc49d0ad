"""A 2D navmesh's answers to the crowd hooks: its walls as RVO2 obstacle
rings (``navcore_walls``) and Detour's ``moveAlongSurface`` for many
points at once (``navcore_move_along_surface``). A layered (3D) mesh
passes: its walls overlap in projection. Kernels in ``_surface``."""
from __future__ import annotations

import numpy as np

from navcore import validate

from . import _surface as K
from .mesh import size_scale
from .meshqueries import AREAS_KEY, PolygonAreas, _VISITED_KEY, _visited
from .tiles import BORDER_EPS

#: how far (relative to the mesh's size) a move that meets a wall stays
#: off it, on the walkable side, before it slides
NUDGE = 1e-9


def walls(graph):
    """``navcore_walls`` on a 2D navmesh: the sides of walkable polygons
    with no walkable polygon across, as closed rings with the walkable
    polygons on the right, collinear runs merged (``_surface.mesh_walls``).
    Blocked polygons are solid; so is a polygon an obstacle update
    re-triangulated away: the rings follow the mesh arrays of
    ``graph.version``."""
    if graph.heights is not None:
        return None
    return K.mesh_walls(graph.vertices, graph.poly_start, graph.poly_verts, graph.poly_adj,
                        graph.poly_next, graph.walkable)


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
    crowd kept from before an update that blocked or re-triangulated it)."""
    if graph.heights is not None:
        return None
    s, n, e = validate.surface_moves(start, nodes, end, graph.num_nodes)
    areas = graph.view(AREAS_KEY, PolygonAreas)
    box = np.array([areas.lo[0], areas.lo[1], areas.hi[0], areas.hi[1]], dtype=np.float64)
    points = np.empty_like(s)
    out = np.empty(s.shape[0], dtype=np.int32)
    K.move_many(s, n, e, graph.vertices, graph.poly_start, graph.poly_verts, graph.poly_adj,
                graph.poly_opposite, graph.walkable, *_cells(graph), box,
                NUDGE * size_scale(box.reshape(2, 2)), points, out,
                graph.scratch(_VISITED_KEY, _visited))
    return points, out


def warm_up(graph) -> None:
    """Compile the kernels on ``graph``'s arrays (no points to move)."""
    if graph.heights is not None:
        return
    walls(graph)
    move_along_surface(graph, np.empty((0, 2)), np.empty(0, dtype=np.int32),
                       np.empty((0, 2)))
