"""A third-party navcore plugin: hexagonal grids (``type: hexgrid``).

It shows the whole extension point: a builder turns parameters into a
``navcore.NavGraph`` via ``NavGraph.from_edges``, so every generic plugin
(A*, reachability, components, updates) works on it without knowing hexes.

Cells use axial coordinates ``(q, r)`` on a ``width x height`` rhombus;
node id ``r * width + q``. Points are cells: ``locate`` takes ``(q, r)`` and
a path's ``points`` are its cells, so they can be queried again. The
``positions`` are the centres in the plane, placed so neighbours are exactly
1 apart, so the euclidean heuristic is exact with cost 1 per step.

    pip install ./examples/navcore_hexgrid      # entry point: navcore -> hexgrid
    world.add_graph("hex", type="hexgrid", width=8, height=8, blocked=[(3, 3)])
"""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate

# axial neighbour directions
_DIRS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)])


class HexGraph(navcore.NavGraph):
    """NavGraph whose points are ``(q, r)`` axial cells."""

    def locate(self, point) -> int:
        """The cell nearest to ``(q, r)`` (fractions round to the hex that
        holds them); -1 outside the grid."""
        q, r = validate.point(point, 2, "a hex cell (q, r)")
        s = -q - r                      # cube rounding: the three must sum to 0
        rq, rr, rs = round(q), round(r), round(s)
        dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
        if dq > dr and dq > ds:
            rq = -rr - rs
        elif dr > ds:
            rr = -rq - rs
        if not (0 <= rq < self.width and 0 <= rr < self.height):
            return -1
        return int(rr * self.width + rq)

    def points_of(self, nodes) -> np.ndarray:
        """The ``(q, r)`` cells of ``nodes``, float64 ``(k, 2)``."""
        r, q = np.divmod(np.asarray(nodes, dtype=np.int64).reshape(-1), self.width)
        return np.column_stack([q, r]).astype(np.float64)


def build_hexgrid(world, graph_id, *, width, height, blocked=()):
    if not (isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0):
        raise navcore.GraphError(f"hexgrid needs positive integer width and height, "
                                 f"got {width!r} x {height!r}")
    q, r = np.meshgrid(np.arange(width), np.arange(height))
    q, r = q.ravel(), r.ravel()
    src, dst = [], []
    for dq, dr in _DIRS:               # six vectorised passes, not per cell
        nq, nr = q + dq, r + dr
        ok = (nq >= 0) & (nq < width) & (nr >= 0) & (nr < height)
        src.append((r * width + q)[ok])
        dst.append((nr * width + nq)[ok])
    positions = np.column_stack([q + r / 2.0, r * np.sqrt(3.0) / 2.0])
    walkable = np.ones(width * height, dtype=bool)
    for cell in blocked:
        cq, cr = cell
        if not (0 <= cq < width and 0 <= cr < height):
            raise navcore.GraphError(f"blocked cell {cell!r} is outside the "
                                     f"{width} x {height} hexgrid")
        walkable[cr * width + cq] = False
    graph = HexGraph.from_edges(np.concatenate(src), np.concatenate(dst), None,
                                num_nodes=width * height, positions=positions,
                                walkable=walkable, world=world)
    graph.width, graph.height = width, height
    return graph


@navcore.hookimpl
def navcore_graph_types():
    return {"hexgrid": build_hexgrid}
