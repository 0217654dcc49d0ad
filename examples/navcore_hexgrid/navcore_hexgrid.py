"""A third-party navcore plugin: hexagonal grids (``type: hexgrid``).

It shows the whole extension point: a builder turns parameters into a
``navcore.NavGraph`` via ``NavGraph.from_edges``, so every generic plugin
(A*, reachability, components, updates) works on it without knowing hexes;
a ``navcore.SceneLayer`` and a draw hook put it in scenes and pictures.

Cells use axial coordinates ``(q, r)`` on a ``width x height`` rhombus;
node id ``r * width + q``. Centres are placed so neighbours are exactly
1 apart, so the euclidean heuristic is exact with cost 1 per step. A pair
of integers names a cell ``(q, r)``; a pair of floats (where scene agents
walk, what ``points`` holds) is a position in the plane, in the hex
around it.

    pip install ./examples/navcore_hexgrid      # entry point: navcore -> hexgrid
    world.add_graph("hex", type="hexgrid", width=8, height=8, blocked=[(3, 3)])
"""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate
from navcore.graph import HEURISTICS

# axial neighbour directions
_DIRS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)])


def axial(points) -> np.ndarray:
    """``(k, 2)`` int ``(q, r)`` of the hexes round plane points (cube rounding)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    r = p[:, 1] * 2 / np.sqrt(3.0)
    cube = np.column_stack([p[:, 0] - r / 2, r, -p[:, 0] - r / 2])
    out = np.round(cube)
    worst = np.abs(out - cube).argmax(axis=1)        # the other two fix it
    out[np.arange(len(p)), worst] -= out.sum(axis=1)
    return out[:, :2].astype(np.int64)


class HexGraph(navcore.NavGraph):
    """NavGraph whose cells are ``(q, r)`` axial pairs."""

    def locate(self, point) -> int:
        if isinstance(point, (tuple, list)) and len(point) == 2 \
                and all(validate.is_int(c) for c in point):
            q, r = (int(c) for c in point)
        else:
            q, r = axial(validate.point(point))[0]
        if not (0 <= q < self.width and 0 <= r < self.height):
            return -1
        return int(r * self.width + q)


class HexLayer(navcore.SceneLayer):
    """Hexgrids in scenes: a region is a list of ``[q, r]`` cells."""

    node_word = "hex"

    def region(self, value):
        w, h = self.graph.width, self.graph.height
        if not isinstance(value, list) or not value or not all(
                isinstance(c, list) and len(c) == 2 and all(type(v) is int for v in c)
                and 0 <= c[0] < w and 0 <= c[1] < h for c in value):
            raise navcore.SceneError(f"must be a list of [q, r] cells of the {w} x {h} "
                                     f"hexgrid, got {validate.describe(value)}")
        return tuple(r * w + q for q, r in value)

    def nodes_in(self, region):
        return np.array(region, dtype=np.int64)

    def show(self, region):
        return str([[n % self.graph.width, n // self.graph.width] for n in region])


def build_hexgrid(world, graph_id, *, width, height, blocked=()):
    """A hexagonal grid in axial coordinates; cell ``(q, r)`` is node
    ``r * width + q``, with six neighbours at cost 1.

    Parameters:
        width: cells per row.
        height: rows.
        blocked: ``(q, r)`` cells that are walls.
    """
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


@navcore.hookimpl
@navcore.for_graphs(HexGraph)
def navcore_query_options(graph):
    # the csr plugin's A* searches hexgrids and reads heuristic= (any other
    # option is refused on them)
    return {"heuristic": HEURISTICS}


@navcore.hookimpl
@navcore.for_graphs(HexGraph)
def navcore_scene_layer(world, graph_id, graph):
    return HexLayer(world, graph_id, graph)


@navcore.hookimpl
@navcore.for_graphs(HexGraph)
def navcore_draw_graph(graph, canvas):
    qr = axial(canvas.pixel_centres())               # each pixel shows its hex
    ok = (qr >= 0).all(axis=1) & (qr[:, 0] < graph.width) & (qr[:, 1] < graph.height)
    canvas.paint(np.where(ok, qr[:, 1] * graph.width + qr[:, 0], -1)
                 .reshape(canvas.node_at.shape))
    return True
