"""Where the members of a crowd that walks as discs start: points drawn
from its ``from`` region (by the graph's scene layer,
``SceneLayer.sample_points``) and kept only where a disc of the member's
radius overlaps no disc placed before it, on that graph, by any group
or agent (dart throwing over a hash grid). A region too small for its
crowd says how many fit, rather than starting agents inside each other.
"""
from __future__ import annotations

import math

import numpy as np

#: rounds of candidate points drawn before a region counts as full
ROUNDS = 8
#: candidates drawn per member still to place, each round
PER_MEMBER = 4


class Spots:
    """The discs placed so far on one graph: ``free(p, r)`` says whether a
    disc of radius ``r`` at ``p`` overlaps none of them; ``add`` places
    one. A hash grid of cells ``2 * largest`` wide (the largest radius
    placed on the graph) finds the few discs near a point."""

    def __init__(self, largest: float):
        self.side = 2.0 * largest
        self.cells: dict = {}

    def _cell(self, x, y) -> tuple:
        return (math.floor(x / self.side), math.floor(y / self.side))

    def free(self, p, r: float) -> bool:
        cx, cy = self._cell(p[0], p[1])
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for qx, qy, qr in self.cells.get((cx + dx, cy + dy), ()):
                    if (qx - p[0]) ** 2 + (qy - p[1]) ** 2 < (qr + r) ** 2:
                        return False
        return True

    def add(self, p, r: float) -> None:
        self.cells.setdefault(self._cell(p[0], p[1]), []).append((float(p[0]), float(p[1]),
                                                                  float(r)))


def spread(layer, region, radii, rng, usable, spots: Spots):
    """``(len(radii), 2)`` start points in ``region`` of ``layer`` (on
    nodes ``usable`` says may be used), one per radius, in order, each
    disc clear of every disc in ``spots`` (which gets them); ``(points,
    placed)`` with ``placed < len(radii)`` when the region had room for
    only that many (``points`` then holds those), and ``None`` when it
    holds no usable node at all."""
    count = len(radii)
    out = np.empty((count, 2))
    placed = 0
    for _ in range(ROUNDS):
        want = PER_MEMBER * (count - placed) + 64
        cand = layer.sample_points(region, want, rng, usable)
        if cand is None:
            return None
        for p in np.asarray(cand, dtype=np.float64)[:, :2].tolist():
            r = float(radii[placed])
            if spots.free(p, r):
                spots.add(p, r)
                out[placed] = p
                placed += 1
                if placed == count:
                    return out, placed
    return out[:placed], placed
