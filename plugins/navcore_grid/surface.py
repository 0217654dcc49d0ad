"""A grid's answers to the crowd hooks: its walls as RVO2 obstacle rings
(``navcore_walls``) and Detour's ``moveAlongSurface`` for many points at
once (``navcore_move_along_surface``). Kernels in ``_surface``."""
from __future__ import annotations

import numpy as np

from navcore import validate

from . import _surface as K


def walls(graph):
    """``navcore_walls`` on a grid: the sides between walkable cells and
    blocked cells or the map's border, as closed rings with the walkable
    cells on the right, collinear sides merged (``_surface.grid_walls``;
    at a cell corner where two blocked cells meet diagonally a ring turns
    around the blocked cell's corner)."""
    return K.grid_walls(graph.width, graph.height, graph.walkable)


def move_along_surface(graph, start, nodes, end):
    """``navcore_move_along_surface`` on a grid, in one kernel call
    (``_surface.move_many``). A start's cell is read off its point
    (``floor``), so ``nodes`` is only checked: a cell id a crowd kept from
    an earlier version of the grid cannot mislead it."""
    s, _, e = validate.surface_moves(start, nodes, end, graph.num_nodes)
    points = np.empty_like(s)
    out = np.empty(s.shape[0], dtype=np.int32)
    K.move_many(s, e, graph.width, graph.height, graph.walkable, points, out)
    return points, out


def warm_up(graph) -> None:
    """Compile the kernels on arrays of ``graph``'s types (no points)."""
    K.grid_walls(1, 1, np.ones(1, dtype=np.bool_))
    move_along_surface(graph, np.empty((0, 2)), np.empty(0, dtype=np.int32),
                       np.empty((0, 2)))
