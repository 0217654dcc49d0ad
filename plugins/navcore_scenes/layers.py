"""What a scene does to a grid's cells: a static layer under moving obstacles.

Events (doors, blocks, costs) change the *static* layer; obstacles cover
cells while they sit on them. A cell is walkable when the static layer says
so and no obstacle covers it, so an obstacle that drives over a door and
leaves restores the door's state, not "walkable". Changes collected during
a frame are compared with what the graph will hold and queued through
``world.update`` as at most two cell lists per graph (block, unblock), the
next ``tick`` applying them as one batch.
"""
from __future__ import annotations

import numpy as np


class GridLayers:
    """Static layer, obstacle cover and pending changes of one grid graph."""

    def __init__(self, world, graph_id, width: int, height: int):
        self.world = world
        self.graph_id = graph_id
        self.width, self.height = width, height
        walkable = world.graph(graph_id).walkable
        self.drawn = walkable.copy()           # the map as it was built
        self.static = walkable.copy()          # the map as events left it
        self.current = walkable.copy()         # the graph after the queued updates
        self.covered = np.zeros(walkable.size, dtype=np.int16)   # obstacles per cell
        self._touched: list = []

    def rect_nodes(self, rect) -> np.ndarray:
        x, y, w, h = rect
        ys, xs = np.mgrid[y:y + h, x:x + w]
        return (ys * self.width + xs).ravel()

    def set_static(self, rect, walkable: bool) -> None:
        idx = self.rect_nodes(rect)
        self.static[idx] = walkable
        self._touched.append(idx)

    def restore(self, rect) -> None:
        """The cells of ``rect`` as the map drew them (an opened door)."""
        idx = self.rect_nodes(rect)
        self.static[idx] = self.drawn[idx]
        self._touched.append(idx)

    def set_cost(self, rect, value: float) -> None:
        """The cost of every cell of ``rect``; ``inf`` makes them walls, a
        finite cost leaves walls walls (mud does not dissolve rocks).

        Queued now: a grid update with ``cost=`` also makes every cell
        walkable where the cost is finite, so ``flush`` blocks the walls
        and covered cells again in the same batch (the last write wins).
        """
        idx = self.rect_nodes(rect)
        self.world.update(self.graph_id, rect=tuple(rect), cost=float(value))
        self.current[idx] = np.isfinite(value)
        if not np.isfinite(value):
            self.static[idx] = False
        self._touched.append(idx)

    def cover(self, rect, amount: int) -> None:
        """An obstacle arrives on (``+1``) or leaves (``-1``) ``rect``."""
        idx = self.rect_nodes(rect)
        self.covered[idx] += amount
        self._touched.append(idx)

    def flush(self) -> int:
        """Queue the cells whose walkability must change; returns how many."""
        if not self._touched:
            return 0
        idx = np.unique(np.concatenate(self._touched))
        self._touched.clear()
        want = self.static[idx] & (self.covered[idx] == 0)
        change = want != self.current[idx]
        for walkable in (False, True):
            nodes = idx[change & (want == walkable)]
            if nodes.size:
                cells = np.column_stack((nodes % self.width, nodes // self.width))
                self.world.update(self.graph_id, cells=cells, walkable=walkable)
        self.current[idx] = want
        return int(change.sum())


class Obstacles:
    """Rectangles that move at a constant velocity (cells per second) and
    bounce off the edges of their grid; all of them stepped at once."""

    def __init__(self, specs, layers: dict):
        self.ids = [s.id for s in specs]
        self.layers = [layers[s.graph] for s in specs]
        self.size = np.array([s.rect[2:] for s in specs], dtype=np.float64).reshape(-1, 2)
        self.pos = np.array([s.rect[:2] for s in specs], dtype=np.float64).reshape(-1, 2)
        self.vel = np.array([s.velocity for s in specs], dtype=np.float64).reshape(-1, 2)
        self.limit = np.array([(lay.width, lay.height) for lay in self.layers],
                              dtype=np.float64).reshape(-1, 2) - self.size
        self.cell = self.pos.astype(np.int64)
        for i, lay in enumerate(self.layers):
            lay.cover(self.rect(i), +1)

    def rect(self, i: int) -> tuple:
        (x, y), (w, h) = self.cell[i], self.size[i].astype(np.int64)
        return (int(x), int(y), int(w), int(h))

    def step(self, dt: float) -> int:
        """Move every obstacle by ``velocity * dt``; returns how many moved
        to other cells (only those change the graph)."""
        if not self.ids:
            return 0
        p = self.pos + self.vel * dt
        low, high = p < 0, p > self.limit
        p = np.where(low, -p, np.where(high, 2 * self.limit - p, p))   # reflect
        self.vel = np.where(low | high, -self.vel, self.vel)
        self.pos = np.clip(p, 0, self.limit)
        cell = np.floor(self.pos).astype(np.int64)
        moved = np.flatnonzero((cell != self.cell).any(axis=1))
        for i in moved:           # a handful of obstacles, each a numpy rectangle
            self.layers[i].cover(self.rect(i), -1)
            self.cell[i] = cell[i]
            self.layers[i].cover(self.rect(i), +1)
        return int(moved.size)
