"""Run-time obstacles of a tiled level (DetourTileCache's temporary
obstacles): boxes, upright cylinders and convex prisms whose walkable
spans become unwalkable.

An obstacle is marked on each tile's compact heightfield right after it
is compacted and before the erosion by the agent radius (Recast's
``rcMarkBoxArea``/``rcMarkCylinderArea``/``rcMarkConvexPolyArea`` with
area 0), so the mesh keeps ``agent_radius`` from an obstacle as from a
wall. A tile keeps its compact heightfield as built without obstacles
(``TiledLevel.compacts``); adding or removing obstacles re-runs only
marking, erosion, regions, contours, polygons and detail of the tiles
whose padded grid an obstacle reaches (:func:`navcore_levels.rebuild_obstacles`),
and the result equals a build of the level with those obstacles from
scratch (``build_tiled(..., obstacles=)``).

Specs, in the level's own axes (``up="y"``: ``(x, y, z)`` with y up;
``up="z"``: z up), as :func:`obstacle` reads them:

* ``{"box": [[x0, y0, z0], [x1, y1, z1]]}``: two opposite corners; the
  spans whose floor lies in the box;
* ``{"cylinder": {"center": (x, y, z), "radius": r, "height": h}}``:
  ``center`` is the middle of its base; the spans whose cell centre is
  within ``r`` of its axis and whose floor is at most ``h`` above the base;
* ``{"convex": [[a, b], ...], "ymin": lo, "ymax": hi}``: a convex polygon
  of ground points (``(x, z)`` with y up, ``(x, y)`` with z up) and the
  heights between which a floor is covered.

A box or prism that should block a floor must reach from below the
floor's surface to above it (the floor lies at the top of its voxels, up
to a cell height above the triangles).
"""
from __future__ import annotations

import math

import numpy as np

from navcore import limits, validate
from navcore.errors import UpdateError

from . import _spans

__all__ = ["Obstacle", "obstacle", "mark_obstacles"]

KINDS = ("box", "cylinder", "convex")


class Obstacle:
    """A checked obstacle in Recast's y-up frame: ``kind`` (one of
    ``KINDS``), ``params`` (the marking kernel's arguments) and its x-z
    box ``lo``/``hi`` (float64 ``(2,)``)."""

    __slots__ = ("kind", "params", "lo", "hi", "spec")

    def __init__(self, kind, params, lo, hi, spec=None):
        self.kind, self.params, self.lo, self.hi, self.spec = kind, params, lo, hi, spec

    def __repr__(self) -> str:
        return f"Obstacle({self.kind}, x-z {self.lo.tolist()}..{self.hi.tolist()})"


def _to_recast(p, up):
    """A user point ``(3,)`` in Recast's frame: ``up="z"`` maps
    ``(x, y, z) -> (x, z, -y)``, as the level's vertices were."""
    return p if up == "y" else np.array([p[0], p[2], -p[1]])


def _finite(value, what) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)) or not math.isfinite(value) \
            or abs(value) > limits.MAX_COORDINATE:
        raise UpdateError(f"{what} must be a finite number within "
                          f"±{limits.MAX_COORDINATE:g}, got {validate.describe(value)}")
    return float(value)


def _shape(value):
    """``np.shape(value)``; None for text, dicts and ragged lists."""
    if isinstance(value, (str, bytes, dict)):
        return None
    try:
        return np.shape(value)
    except ValueError:
        return None


def _point3(value, what) -> np.ndarray:
    if _shape(value) != (3,):
        raise UpdateError(f"{what} must be a point (x, y, z), got {validate.describe(value)}")
    return np.array([_finite(v, f"{what}[{i}]") for i, v in enumerate(value)])


def obstacle(spec, up: str = "y") -> Obstacle:
    """``spec`` (see the module docstring) checked and turned into
    Recast's frame (``up``: the level's up axis, ``"y"`` or ``"z"``);
    ``UpdateError`` saying what is wrong."""
    if not isinstance(up, str) or up not in ("y", "z"):
        raise UpdateError(f"up must be 'y' or 'z', got {validate.describe(up)}")
    if not isinstance(spec, dict):
        raise UpdateError(f"an obstacle must be a dict with one of {', '.join(KINDS)} "
                          f"(e.g. {{'box': [[x0, y0, z0], [x1, y1, z1]]}}), got "
                          f"{validate.describe(spec)}")
    kinds = [k for k in KINDS if k in spec]
    if len(kinds) != 1:
        raise UpdateError(f"an obstacle takes exactly one of {', '.join(KINDS)}, got keys "
                          f"{sorted(map(str, spec))}")
    kind = kinds[0]
    allowed = {kind, "ymin", "ymax"} if kind == "convex" else {kind}
    extra = set(spec) - allowed
    if extra:
        raise UpdateError(f"a {kind} obstacle takes {sorted(allowed)}, not "
                          f"{sorted(map(str, extra))}")
    if kind == "box":
        box = spec["box"]
        if _shape(box) != (2, 3):
            raise UpdateError(f"box must be two corners [[x0, y0, z0], [x1, y1, z1]], got "
                              f"{validate.describe(box)}")
        a = _to_recast(_point3(box[0], "box[0]"), up)
        b = _to_recast(_point3(box[1], "box[1]"), up)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        if not (hi[0] > lo[0] and hi[2] > lo[2]):
            raise UpdateError(f"box {box!r} has no area on the ground: its corners must "
                              f"differ across both ground axes")
        return Obstacle(kind, (lo, hi), lo[[0, 2]], hi[[0, 2]], spec)
    if kind == "cylinder":
        cyl = spec["cylinder"]
        if not isinstance(cyl, dict) or set(cyl) != {"center", "radius", "height"}:
            raise UpdateError(f"cylinder must be {{'center': (x, y, z), 'radius': r, "
                              f"'height': h}}, got {validate.describe(cyl)}")
        c = _to_recast(_point3(cyl["center"], "cylinder center"), up)
        r = _finite(cyl["radius"], "cylinder radius")
        h = _finite(cyl["height"], "cylinder height")
        if r <= 0 or h < 0:
            raise UpdateError(f"a cylinder needs radius > 0 and height >= 0, got radius "
                              f"{r:g}, height {h:g}")
        return Obstacle(kind, (c, r, h), c[[0, 2]] - r, c[[0, 2]] + r, spec)
    if "ymin" not in spec or "ymax" not in spec:
        raise UpdateError("a convex obstacle needs ymin= and ymax= (the heights it covers)")
    pts = validate.points(spec["convex"], "convex", UpdateError)
    if len(pts) < 3:
        raise UpdateError(f"convex must have 3 or more points, got {len(pts)}")
    if (np.abs(pts) > limits.MAX_COORDINATE).any():
        raise UpdateError(f"convex points must lie within ±{limits.MAX_COORDINATE:g}")
    lo_h, hi_h = _finite(spec["ymin"], "ymin"), _finite(spec["ymax"], "ymax")
    if lo_h > hi_h:
        raise UpdateError(f"ymin {lo_h:g} is above ymax {hi_h:g}")
    if up == "z":                                    # ground (x, y) -> Recast (x, -y)
        pts = np.column_stack([pts[:, 0], -pts[:, 1]])
    e = np.roll(pts, -1, axis=0) - pts
    turn = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    scale = max(float(np.ptp(pts, axis=0).max()), 1e-300) ** 2
    area2 = float((pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1]).sum())
    if abs(area2) <= 1e-12 * scale:
        raise UpdateError("convex has no area on the ground")
    if (turn * np.sign(area2) < -1e-9 * scale).any():
        raise UpdateError("convex must be a convex polygon (its corners in order)")
    return Obstacle(kind, (np.ascontiguousarray(pts), lo_h, hi_h), pts.min(axis=0),
                    pts.max(axis=0), spec)


def mark_obstacles(chf, obstacles) -> np.ndarray:
    """A copy of ``chf.area`` with the spans under ``obstacles``
    (:class:`Obstacle` values) set to 0 (not walkable)."""
    area = chf.area.copy()
    bmin = np.asarray(chf.bmin, np.float64)
    cs, ch = float(chf.cs), float(chf.ch)
    args = (chf.cell_index, chf.cell_count, chf.y, area, chf.width, chf.height, bmin, cs, ch)
    null = np.uint8(0)
    for ob in obstacles:
        if ob.kind == "box":
            _spans.mark_box(*args, ob.params[0], ob.params[1], null)
        elif ob.kind == "cylinder":
            c, r, h = ob.params
            _spans.mark_cylinder(*args, c, r, h, null)
        else:
            pts, lo_h, hi_h = ob.params
            _spans.mark_convex_polygon(*args, pts, lo_h, hi_h, null)
    return area
