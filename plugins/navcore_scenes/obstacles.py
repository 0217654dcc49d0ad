"""Moving obstacles: boxes that move at a constant velocity (map units per
second), bounce off the sides of their graph's ``bounds`` and block the
nodes under them, all stepped at once with numpy.

What an obstacle covers is its graph's business: the scene layer maps its
box to a region (``box_region``; on a grid, the cells under it) and keeps
the cover apart from the static map (``SceneLayer.cover``), so an obstacle
that leaves restores what was there. Python runs per obstacle only to ask
for its region, which changes only when it moved onto other nodes.
"""
from __future__ import annotations

import numpy as np


class Obstacles:
    """The moving obstacles of a simulation: ``specs`` are the scene's
    obstacles, ``placed`` gives each one's ``(region, box, bounds)`` as its
    graph's scene layer read them, ``layers`` the layers by graph id."""

    def __init__(self, specs, placed, layers: dict):
        self.ids = [s.id for s in specs]
        self.layers = [layers[s.graph] for s in specs]
        self.region = [r for r, _, _ in placed]
        box = np.array([b for _, b, _ in placed], dtype=np.float64).reshape(-1, 4)
        self.pos, self.size = box[:, :2].copy(), box[:, 2:].copy()
        self.vel = np.array([s.velocity for s in specs], dtype=np.float64).reshape(-1, 2)
        bounds = np.array([b for _, _, b in placed], dtype=np.float64).reshape(-1, 4)
        self.low = bounds[:, :2]
        self.high = bounds[:, 2:] - self.size
        for lay, r in zip(self.layers, self.region):
            lay.cover(r, +1)

    def step(self, dt: float) -> int:
        """Move every obstacle by ``velocity * dt``; returns how many moved
        onto other nodes (only those change the graph)."""
        if not self.ids:
            return 0
        p = self.pos + self.vel * dt
        low, high = p < self.low, p > self.high
        p = np.where(low, 2 * self.low - p, np.where(high, 2 * self.high - p, p))   # reflect
        self.vel = np.where(low | high, -self.vel, self.vel)
        self.pos = np.clip(p, self.low, self.high)
        moved = 0
        for i, lay in enumerate(self.layers):     # a handful of obstacles
            r = lay.box_region((*self.pos[i], *self.size[i]))
            if r != self.region[i]:
                lay.cover(self.region[i], -1)
                lay.cover(r, +1)
                self.region[i] = r
                moved += 1
        return moved
