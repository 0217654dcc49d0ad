"""Point queries on grids, as the navmesh answers them: ``raycast`` (the
first blocked cell along a segment), ``random_point`` (uniform over the
walkable cells' area) and ``nearest_point`` (the nearest walkable cell's
nearest point). Points are ``(x, y)`` in cell units (cell ``(x, y)``
spans ``[x, x + 1) x [y, y + 1)``). Kernels in ``_pointqueries``."""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate
from navcore.types import MeshPoint, PathStatus, RaycastHit

from . import _pointqueries as K

#: where a grid keeps its walkable cell ids for ``random_point``
WALKABLE_KEY = "navcore_grid.walkable_cells"
_VISITED_KEY = "navcore_grid.ray_visited"


class WalkableCells(navcore.DerivedView):
    """``cells``: the int64 ids of the walkable cells (rebuilt with the
    graph's version)."""

    def __init__(self, graph):
        super().__init__(graph)
        self.cells = np.flatnonzero(graph.walkable)


def _visited(graph):
    return np.empty(graph.width + graph.height + 4, dtype=np.int32)


def raycast(graph, start, end) -> RaycastHit:
    """``World.raycast`` on a grid."""
    sx, sy = validate.xy(start, "the ray's start")
    ex, ey = validate.xy(end, "the ray's end")
    node = graph.locate((sx, sy))
    if node < 0 or not graph.walkable[node]:
        return RaycastHit(PathStatus.INVALID_START, False, float("nan"), None, None,
                          np.empty(0, dtype=np.int32))
    visited = graph.scratch(_VISITED_KEY, _visited)
    hit, t, nx, ny, count = K.raycast(sx, sy, ex, ey, graph.width, graph.height,
                                      graph.walkable, visited)
    point = np.array([sx + t * (ex - sx), sy + t * (ey - sy)]) if hit else np.array([ex, ey])
    return RaycastHit(PathStatus.FOUND, bool(hit), float(t), point, np.array([nx, ny]),
                      visited[:count].copy())


def random_point(graph, rng) -> MeshPoint:
    """``World.random_point`` on a grid: a walkable cell, a uniform point in it."""
    cells = graph.view(WALKABLE_KEY, WalkableCells).cells
    if not cells.size:
        return MeshPoint(-1, None)
    c = int(cells[rng.integers(cells.size)])
    y, x = divmod(c, graph.width)
    u = rng.random(2)
    return MeshPoint(c, np.array([x + u[0], y + u[1]]))


#: draws ``random_point_around`` makes before it settles for the centre
#: itself (each lands inside the circle with probability its share of
#: the cells' area)
AROUND_TRIES = 256


def random_point_around(graph, point, radius, rng) -> MeshPoint:
    """``World.random_point(..., around=, radius=)`` on a grid: a walkable
    cell connected to ``point``'s within the circle through cells sharing
    a side (``cells_in_circle``; no CSR view is built),
    a point uniform in it, drawn again until it lies in the circle; after
    ``AROUND_TRIES`` misses ``point`` itself."""
    x, y = validate.xy(point, "around")
    start = graph.locate((x, y))
    if start < 0 or not graph.walkable[start]:
        return MeshPoint(-1, None)
    cells = np.empty(graph.num_nodes, dtype=np.int64)
    n = K.cells_in_circle(x, y, float(radius), int(start), graph.width, graph.height,
                          graph.walkable, cells)
    r2 = float(radius) * float(radius)
    for _ in range(AROUND_TRIES):
        c = int(cells[rng.integers(n)])
        cy, cx = divmod(c, graph.width)
        u = rng.random(2)
        px, py = cx + u[0], cy + u[1]
        if (px - x) ** 2 + (py - y) ** 2 <= r2:
            return MeshPoint(c, np.array([px, py]))
    return MeshPoint(int(start), np.array([x, y]))


def nearest_point(graph, point) -> MeshPoint:
    """``World.nearest_point`` on a grid."""
    x, y = validate.xy(point, "point")
    c, px, py = K.nearest_cell(x, y, graph.width, graph.height, graph.walkable)
    return MeshPoint(-1, None) if c < 0 else MeshPoint(int(c), np.array([px, py]))


def warm_up(graph) -> None:
    """Compile the kernels on ``graph``'s arrays."""
    K.raycast(0.5, 0.5, 0.5, 0.5, graph.width, graph.height, graph.walkable,
              graph.scratch(_VISITED_KEY, _visited))
    K.nearest_cell(0.5, 0.5, graph.width, graph.height, graph.walkable)
    K.cells_in_circle(0.5, 0.5, 1.0, 0, graph.width, graph.height, graph.walkable,
                      np.empty(graph.num_nodes, dtype=np.int64))
