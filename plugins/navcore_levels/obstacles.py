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

* ``{"box": [[x0, y0, z0], [x1, y1, z1]]}``: the low and the high
  corner; the spans whose floor lies in the box;
* ``{"cylinder": {"center": (x, y, z), "radius": r, "height": h}}``:
  ``center`` is the middle of its base; the spans whose cell centre is
  within ``r`` of its axis and whose floor is at most ``h`` above the base;
* ``{"convex": [[a, b], ...], "ymin": lo, "ymax": hi}``: a convex polygon
  of ground points (``(x, z)`` with y up; ``(x, y)`` with z up, and the
  keys ``zmin``/``zmax``) and the heights between which a floor is
  covered.

These are the ``areas=`` volumes' shapes (``navcore_levels.areas``), read
by the same code.

With ``"area": NAME`` (a name of the level's ``graph.area_names``, or an
id 0..63) an obstacle gives the floor it covers that area type instead of
cutting it (a flooded corridor, a patch of fire: Unity's
NavMeshModifierVolume at run time). Such an obstacle is marked after the
erosion and after the build's ``areas=`` volumes, so it wins over them;
per-query ``exclude_areas`` and area costs then see it.

A box or prism that should block a floor must reach from below the
floor's surface to above it (the floor lies at the top of its voxels, up
to a cell height above the triangles).
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import GraphError, UpdateError

from .areas import area_table
from .voxels import AreaBox, AreaCylinder

__all__ = ["Obstacle", "obstacle"]

KINDS = ("box", "cylinder", "convex")


class Obstacle:
    """A checked obstacle in Recast's y-up frame: ``kind`` (one of
    ``KINDS``), ``volume`` (an area volume of area 0, as
    ``voxels.mark_volume`` marks it) and its x-z box ``lo``/``hi``
    (float64 ``(2,)``)."""

    __slots__ = ("kind", "volume", "lo", "hi", "spec", "area")

    def __init__(self, kind, volume, lo, hi, spec=None, area=0):
        self.kind, self.volume, self.lo, self.hi, self.spec = kind, volume, lo, hi, spec
        #: 0: not walkable; else the area type it gives the floor it covers
        self.area = int(area)

    def __repr__(self) -> str:
        return f"Obstacle({self.kind}, x-z {self.lo.tolist()}..{self.hi.tolist()})"


def obstacle(spec, up: str = "y", area_names=None) -> Obstacle:
    """``spec`` (see the module docstring) checked and turned into
    Recast's frame (``up``: the level's up axis, ``"y"`` or ``"z"``);
    ``UpdateError`` saying what is wrong. The shapes are read as the
    ``areas=`` volumes are (``navcore_levels.areas``), with area 0, or
    with the spec's ``area``: an id 0..63 or a name of ``area_names``
    (the level's ``graph.area_names``)."""
    if not isinstance(up, str) or up not in ("y", "z"):
        raise UpdateError(f"up must be 'y' or 'z', got {validate.describe(up)}")
    if not isinstance(spec, dict):
        raise UpdateError(f"an obstacle must be a dict with one of {', '.join(KINDS)} "
                          f"(e.g. {{'box': [[x0, y0, z0], [x1, y1, z1]]}}), got "
                          f"{validate.describe(spec)}")
    area = _area_id(spec.get("area", 0), area_names)
    try:
        volume = area_table([{**spec, "area": area}], None, (), up).volumes[0]
    except GraphError as exc:
        raise UpdateError(str(exc).replace("areas[0]", "add_obstacle")) from None
    except (TypeError, ValueError):           # ragged lists, where numbers go
        raise UpdateError(f"add_obstacle: malformed obstacle {validate.describe(spec)}") \
            from None
    if isinstance(volume, AreaBox):
        lo, hi = volume.bmin, volume.bmax
        if not (hi[0] > lo[0] and hi[2] > lo[2]):
            raise UpdateError(f"add_obstacle: box {spec['box']!r} has no area on the ground: "
                              f"its corners must differ across both ground axes")
        return Obstacle("box", volume, lo[[0, 2]], hi[[0, 2]], spec, area)
    if isinstance(volume, AreaCylinder):
        if not volume.radius > 0:
            raise UpdateError(f"add_obstacle: a cylinder needs radius > 0, got "
                              f"{volume.radius:g}")
        c = np.asarray(volume.center, np.float64)
        return Obstacle("cylinder", volume, c[[0, 2]] - volume.radius,
                        c[[0, 2]] + volume.radius, spec, area)
    pts = volume[0]
    e = np.roll(pts, -1, axis=0) - pts
    turn = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    scale = max(float(np.ptp(pts, axis=0).max()), 1e-300) ** 2
    area2 = float((pts[:, 0] * np.roll(pts[:, 1], -1) - np.roll(pts[:, 0], -1) * pts[:, 1]).sum())
    if abs(area2) <= 1e-12 * scale:
        raise UpdateError("add_obstacle: convex has no area on the ground")
    if (turn * np.sign(area2) < -1e-9 * scale).any():
        raise UpdateError("add_obstacle: convex must be a convex polygon (its corners in order)")
    return Obstacle("convex", volume, pts.min(axis=0), pts.max(axis=0), spec, area)


def _area_id(value, names) -> int:
    """An obstacle's ``area``: an id 0..63 or a name in ``names``."""
    if validate.is_int(value) and 0 <= int(value) <= 63:
        return int(value)
    known = dict(names or {})
    if isinstance(value, str) and value in known:
        return int(known[value])
    raise UpdateError(f"add_obstacle: area must be an area id 0..63 or a name the level "
                      f"knows ({', '.join(sorted(map(repr, known))) or 'none'}: name new ones "
                      f"in add_graph's areas= or tag_areas=, or an areas= update), got "
                      f"{validate.describe(value)}")
