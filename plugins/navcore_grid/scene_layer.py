"""Grids in scenes: regions are rectangles ``[x, y, w, h]`` of cells.

``GridSceneLayer`` is what the grid plugin's ``navcore_scene_layer``
returns for a grid of a scene (the contract: ``navcore/scene_layer.py``);
``draw`` is its ``navcore_draw_graph``. Numpy only: the scenes plugin
brings YAML and Pillow, this module receives plain values and arrays.
"""
from __future__ import annotations

import math

import numpy as np

from navcore.errors import SceneError
from navcore.scene_layer import SceneLayer
from navcore.validate import describe, is_int

#: how far (cells) an agent whose cell was blocked looks for a free one to start from
STEP_OUT = 3


class GridSceneLayer(SceneLayer):
    """Scene state of one grid: cells ``y * width + x``, a cell spanning
    ``[x, x + 1) x [y, y + 1)``."""

    node_word = "cell"

    def __init__(self, world, graph_id, graph):
        super().__init__(world, graph_id, graph)
        self.width, self.height = graph.width, graph.height

    def region(self, value) -> tuple:
        if not isinstance(value, list) or len(value) != 4 or not all(
                is_int(c) for c in value) \
                or value[0] < 0 or value[1] < 0 or value[2] < 1 or value[3] < 1:
            raise SceneError(f"must be a rectangle [x, y, width, height] of whole numbers "
                             f"(x, y >= 0, width, height >= 1), got {describe(value)}")
        x, y, w, h = (int(c) for c in value)
        if x + w > self.width or y + h > self.height:
            raise SceneError(f"{[x, y, w, h]} does not fit in graph {self.graph_id!r} "
                             f"({self.extent()})")
        return (x, y, w, h)

    def nodes_in(self, region) -> np.ndarray:
        x, y, w, h = region
        ys, xs = np.mgrid[y:y + h, x:x + w]
        return (ys * self.width + xs).ravel()

    def bounds(self) -> tuple:
        return (0, 0, self.width, self.height)

    def box_region(self, box) -> tuple:
        x, y, w, h = box
        return (math.floor(x), math.floor(y), int(w), int(h))   # the cells under its corner

    def region_box(self, region) -> tuple:
        return tuple(float(c) for c in region)

    def queue(self, nodes, walkable) -> None:
        cells = np.column_stack((nodes % self.width, nodes // self.width))
        self.world.update(self.graph_id, cells=cells, walkable=walkable)

    def set_cost(self, region, value) -> None:
        """A grid update with ``cost=`` also makes every cell walkable where
        the cost is finite, so ``current`` says so and the next ``flush``
        blocks the walls and covered cells again in the same batch (the
        last write wins)."""
        idx = self.nodes_in(region)
        self.world.update(self.graph_id, rect=tuple(region), cost=float(value))
        self.current[idx] = np.isfinite(value)
        if not np.isfinite(value):
            self.static[idx] = False
        self.touch(idx)

    def describe(self) -> str:
        return f"{self.width}x{self.height}"

    def extent(self) -> str:
        return f"{self.width} x {self.height} cells"

    def step_out(self, point, node):
        """The centre of the nearest walkable cell at most ``STEP_OUT``
        cells away (``None`` when buried: the request says invalid_start)."""
        if node < 0:                       # a grid never loses its cells
            return None
        w, h = self.width, self.height
        x, y = node % w, node // w
        x0, y0 = max(0, x - STEP_OUT), max(0, y - STEP_OUT)
        window = self.graph.walkable.reshape(h, w)[y0:y + STEP_OUT + 1, x0:x + STEP_OUT + 1]
        ys, xs = np.nonzero(window)
        if xs.size == 0:
            return None
        cx, cy = xs + x0 + 0.5, ys + y0 + 0.5
        k = int(np.argmin((cx - point[0]) ** 2 + (cy - point[1]) ** 2))
        return (float(cx[k]), float(cy[k]))

    def entering_walls(self, at, now) -> np.ndarray:
        w, h = self.width, self.height
        xy = np.floor(at).astype(np.int64)
        here = np.floor(now).astype(np.int64)
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        cell = np.where(inside, xy[:, 1] * w + xy[:, 0], 0)
        moved = (xy != here).any(axis=1)
        return inside & moved & ~self.graph.walkable[cell]


def draw(graph, canvas) -> bool:
    """Each pixel shows the cell its centre lies in (with an integer scale
    a cell is a ``scale`` x ``scale`` square)."""
    h, w = canvas.node_at.shape
    ox, oy = canvas.origin
    cols = np.floor(ox + (np.arange(w) + 0.5) / canvas.scale).astype(np.int64)
    rows = np.floor(oy + (np.arange(h) + 0.5) / canvas.scale).astype(np.int64)
    inside = ((rows >= 0) & (rows < graph.height))[:, None] & \
        ((cols >= 0) & (cols < graph.width))[None, :]
    canvas.paint(np.where(inside, rows[:, None] * graph.width + cols[None, :], -1))
    return True
