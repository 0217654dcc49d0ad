"""Where the members of a crowd that walks as discs start: points drawn
from its ``from`` region (by the graph's scene layer,
``SceneLayer.sample_points``) and kept only where a disc of the member's
radius overlaps no disc placed before it, on that graph, by any group
or agent (dart throwing over a hash grid). A region too small for its
crowd says how many fit, rather than starting agents inside each other.
On a 3D level discs lie on the ground plane at their heights, and two
overlap only when their heights differ by less than the crowd's agent
height: agents on floors above one another may stand over each other.

Their goals, drawn from a ``to`` region, lie apart in the same way among
the crowd's own (``apart``): two members whose goals are closer than
their radii could never both stand on them.
"""
from __future__ import annotations

import math

import numpy as np

#: rounds of candidate points drawn before a region counts as full
ROUNDS = 8
#: candidates drawn per member still to place, each round
PER_MEMBER = 4


#: the up axis of a level's points, by ``graph.up``
_UP = {"y": 1, "z": 2}


class Spots:
    """The discs placed so far on one graph: ``free(p, r)`` says whether a
    disc of radius ``r`` at ``p`` overlaps none of them; ``add`` places
    one. A point ``p`` is ``(ground x, ground y, height)`` (``keys``
    makes them from the scene layer's points); two discs overlap when
    their heights differ by less than ``tall`` (``inf`` on a 2D graph)
    and they overlap on the ground. A hash grid of cells ``2 * largest``
    wide (the largest radius placed on the graph) finds the few discs
    near a point."""

    def __init__(self, largest: float, tall: float = math.inf, layer=None):
        self.side = 2.0 * largest
        self.tall = tall
        self.layer = layer
        self.cells: dict = {}

    def keys(self, points) -> np.ndarray:
        """``(k, 3)``: ``points`` (the layer's, 2 or 3 numbers) as
        ``(ground x, ground y, height)``; height 0 on a 2D graph."""
        lay = self.layer
        dims = 2 if lay is None else lay.dims
        pts = np.asarray(points, dtype=np.float64).reshape(-1, dims)
        out = np.zeros((len(pts), 3))
        if dims == 2:
            out[:, :2] = pts
        else:
            out[:, :2] = lay.on_ground(pts)
            out[:, 2] = pts[:, _UP[lay.graph.up]]
        return out

    def _cell(self, x, y) -> tuple:
        return (math.floor(x / self.side), math.floor(y / self.side))

    def free(self, p, r: float) -> bool:
        cx, cy = self._cell(p[0], p[1])
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for qx, qy, qh, qr in self.cells.get((cx + dx, cy + dy), ()):
                    if (qx - p[0]) ** 2 + (qy - p[1]) ** 2 < (qr + r) ** 2 \
                            and abs(qh - p[2]) < self.tall:
                        return False
        return True

    def add(self, p, r: float) -> None:
        self.cells.setdefault(self._cell(p[0], p[1]), []).append(
            (float(p[0]), float(p[1]), float(p[2]), float(r)))


def spread(layer, region, radii, rng, usable, spots: Spots):
    """``(len(radii), layer.dims)`` start points in ``region`` of ``layer`` (on
    nodes ``usable`` says may be used), one per radius, in order, each
    disc clear of every disc in ``spots`` (which gets them); ``(points,
    placed)`` with ``placed < len(radii)`` when the region had room for
    only that many (``points`` then holds those), and ``None`` when it
    holds no usable node at all."""
    count = len(radii)
    out = np.empty((count, layer.dims))
    placed = 0
    for _ in range(ROUNDS):
        want = PER_MEMBER * (count - placed) + 64
        cand = layer.sample_points(region, want, rng, usable)
        if cand is None:
            return None
        cand = np.asarray(cand, dtype=np.float64)[:, :layer.dims]
        for p, key in zip(cand, spots.keys(cand).tolist()):
            r = float(radii[placed])
            if spots.free(key, r):
                spots.add(key, r)
                out[placed] = p
                placed += 1
                if placed == count:
                    return out, placed
    return out[:placed], placed


def apart(layer, region, points, radii, rng, usable, spots: Spots):
    """``points`` (goals drawn from ``region``, one per radius) with those
    whose disc overlaps the disc of an earlier one (in ``spots``, which
    gets them) drawn again from ``region`` (nodes ``usable``), in order,
    until clear; ``(points, placed)``: ``placed < len(radii)`` when the
    region had room for only that many (the rest keep their first draw).
    Goals that clash are drawn again rather than all of them, so a crowd
    whose goals lie apart keeps the goals it had."""
    out = np.array(points, dtype=np.float64)[:, :layer.dims]
    clash = []
    for k, key in enumerate(spots.keys(out).tolist()):
        r = float(radii[k])
        if spots.free(key, r):
            spots.add(key, r)
        else:
            clash.append(k)
    placed = len(radii) - len(clash)
    for _ in range(ROUNDS):
        if not clash:
            break
        cand = layer.sample_points(region, PER_MEMBER * len(clash) + 64, rng, usable)
        cand = np.asarray(cand, dtype=np.float64)[:, :layer.dims]
        for p, key in zip(cand, spots.keys(cand).tolist()):
            r = float(radii[clash[0]])
            if spots.free(key, r):
                spots.add(key, r)
                out[clash.pop(0)] = p
                placed += 1
                if not clash:
                    break
    return out, placed
