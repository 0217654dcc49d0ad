"""Area types of a level graph: the ``areas=`` volumes and ``tag_areas=``
of ``add_graph(type="level")`` turned into Recast's area ids.

Recast gives every walkable span an area id (``1..63``; ``63``,
``RC_WALKABLE_AREA``, is plain ground, ``0``, ``RC_NULL_AREA``, is not
walkable): triangles get theirs before rasterization, volumes mark the
compact heightfield after erosion, and regions (hence polygons) never mix
areas. Here an area is named: ``"walkable"`` is 63, ``"unwalkable"`` 0
(a volume of it cuts a hole, not widened by the agent's radius, as in
Recast), every other name gets the next free id from 1 in the order the
names first appear (volumes first, then ``tag_areas``); an integer
``0..63`` is taken as the id itself. ``AreaTable.names`` maps each name
to its id (a level graph keeps it as ``graph.area_names``, beside
``graph.area_ids``, the id of each polygon).

Volumes, in the caller's axes (``up`` ``"y"`` or ``"z"``; the height keys
are named after the up axis, ``ymin``/``ymax`` or ``zmin``/``zmax``)::

    {"convex": [[a, b], ...], "ymin": lo, "ymax": hi, "area": name}
        a convex polygon on the ground plane ((x, z) with y up, (x, y)
        with z up), 3 or more points: spans whose cell centre is inside
        and whose floor is between lo and hi (rcMarkConvexPolyArea)
    {"box": [[x0, y0, z0], [x1, y1, z1]], "area": name}
        spans whose cell overlaps the box and whose floor is in it
        (rcMarkBoxArea); corner 0 <= corner 1 on every axis
    {"cylinder": {"center": [x, y, z], "radius": r, "height": h}, "area": name}
        spans whose cell centre is within r of the upright axis through
        center (its base) and whose floor is at most h above it
        (rcMarkCylinderArea)

Later volumes overwrite earlier ones where they overlap (Recast's order).
``tag_areas={"Water_Material": "water"}``: the triangles of each OBJ
material (or group, in a file without materials; a glTF mesh name; see
``levelfile``) rasterize with that area; triangles of other tags are
plain ground.

>>> t = area_table([{"box": [[0, 0, 0], [1, 1, 1]], "area": "water"},
...                 {"box": [[2, 0, 2], [3, 1, 3]], "area": "unwalkable"}],
...                {"Grass": "grass"}, ("", "Grass"), "y")
>>> t.names
{'walkable': 63, 'unwalkable': 0, 'water': 1, 'grass': 2}
>>> t.triangle_ids.tolist(), [int(v.area) for v in t.volumes]
([63, 2], [1, 0])
>>> area_table([{"convex": [[0, 0], [1, 0]], "ymin": 0, "ymax": 1, "area": 1}], None, ("",), "y")
Traceback (most recent call last):
navcore.errors.GraphError: areas[0]: convex must have 3 or more [x, z] points, got 2
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from navcore import validate
from navcore.errors import GraphError

from .heightfield import NULL_AREA, WALKABLE_AREA
from .voxels import AreaBox, AreaCylinder

#: the names every level knows
BUILT_IN = {"walkable": WALKABLE_AREA, "unwalkable": NULL_AREA}
_SHAPES = ("convex", "box", "cylinder")


@dataclass
class AreaTable:
    """``names``: area name -> id; ``volumes``: the checked volumes in
    Recast's y-up frame (``build_navmesh_arrays``' ``volumes``);
    ``triangle_ids``: uint8 area id per tag (index by
    ``Level.triangle_tags``), or None when no tag is mapped."""
    names: dict = field(default_factory=lambda: dict(BUILT_IN))
    volumes: list = field(default_factory=list)
    triangle_ids: np.ndarray | None = None

    def area_id(self, value, what: str) -> int:
        """The id of area ``value`` (a name, new names get the next free
        id, or an id 0..63)."""
        if validate.is_int(value):
            if not NULL_AREA <= int(value) <= WALKABLE_AREA:
                raise GraphError(f"{what}: area id {int(value)} is not in "
                                 f"{NULL_AREA}..{WALKABLE_AREA}")
            return int(value)
        if not isinstance(value, str) or not value:
            raise GraphError(f"{what}: area must be a name (str) or an id {NULL_AREA}.."
                             f"{WALKABLE_AREA}, got {validate.describe(value)}")
        if value not in self.names:
            used = set(self.names.values())
            free = [i for i in range(1, WALKABLE_AREA) if i not in used]
            if not free:
                raise GraphError(f"{what}: no area id left for {value!r} (ids 1.."
                                 f"{WALKABLE_AREA - 1} are all named)")
            self.names[value] = free[0]
        return self.names[value]


def _number(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise GraphError(f"{what} must be a finite number, got {validate.describe(value)}")
    return float(value)


def _triple(value, what: str) -> np.ndarray:
    """A caller's 3D point, in the caller's axes."""
    if isinstance(value, (str, bytes)) or np.shape(value) != (3,):
        raise GraphError(f"{what} must be a point [x, y, z], got {validate.describe(value)}")
    return np.array([_number(v, what) for v in value])


def _to_y_up(p: np.ndarray, up: str) -> np.ndarray:
    """A caller's point in Recast's y-up frame (``levelfile``'s turn)."""
    return np.array([p[0], p[2], -p[1]]) if up == "z" else p


def _convex(spec, where, up, table):
    ground = "[x, y]" if up == "z" else "[x, z]"
    pts = spec["convex"]
    if isinstance(pts, (str, bytes)) or not hasattr(pts, "__len__"):
        raise GraphError(f"{where}: convex must be a list of {ground} points, got "
                         f"{validate.describe(pts)}")
    if len(pts) < 3:
        raise GraphError(f"{where}: convex must have 3 or more {ground} points, got {len(pts)}")
    poly = validate.points(pts, f"{where}: convex", GraphError)
    if up == "z":
        poly = np.column_stack([poly[:, 0], -poly[:, 1]])
    lo_key, hi_key = f"{up}min", f"{up}max"
    missing = [k for k in (lo_key, hi_key) if k not in spec]
    if missing:
        raise GraphError(f"{where}: a convex volume needs {lo_key} and {hi_key} (its "
                         f"height range along {up}, the up axis), missing "
                         f"{', '.join(missing)}")
    lo, hi = _number(spec[lo_key], f"{where}: {lo_key}"), _number(spec[hi_key], f"{where}: "
                                                                               f"{hi_key}")
    if lo > hi:
        raise GraphError(f"{where}: {lo_key} {lo:g} is above {hi_key} {hi:g}")
    return (np.ascontiguousarray(poly), lo, hi, np.uint8(table.area_id(spec["area"], where)))


def _box(spec, where, up, table):
    corners = spec["box"]
    if isinstance(corners, (str, bytes)) or not hasattr(corners, "__len__") or len(corners) != 2:
        raise GraphError(f"{where}: box must be two corners [[x0, y0, z0], [x1, y1, z1]], got "
                         f"{validate.describe(corners)}")
    given = [_triple(c, f"{where}: box corner {i}") for i, c in enumerate(corners)]
    if (given[0] > given[1]).any():
        axis = "xyz"[int(np.flatnonzero(given[0] > given[1])[0])]
        raise GraphError(f"{where}: box corner 0 {given[0].tolist()} is beyond corner 1 "
                         f"{given[1].tolist()} along {axis}")
    a, b = (_to_y_up(c, up) for c in given)
    return AreaBox(np.minimum(a, b), np.maximum(a, b),
                   np.uint8(table.area_id(spec["area"], where)))


def _cylinder(spec, where, up, table):
    cyl = spec["cylinder"]
    if not isinstance(cyl, dict) or set(cyl) != {"center", "radius", "height"}:
        raise GraphError(f"{where}: cylinder must be {{'center': [x, y, z], 'radius': r, "
                         f"'height': h}}, got {validate.describe(cyl)}")
    center = _to_y_up(_triple(cyl["center"], f"{where}: cylinder center"), up)
    radius = _number(cyl["radius"], f"{where}: cylinder radius")
    height = _number(cyl["height"], f"{where}: cylinder height")
    if radius < 0 or height < 0:
        raise GraphError(f"{where}: cylinder radius and height must be >= 0, got {radius:g} "
                         f"and {height:g}")
    return AreaCylinder(center, radius, height, np.uint8(table.area_id(spec["area"], where)))


_READERS = {"convex": _convex, "box": _box, "cylinder": _cylinder}


def area_table(areas, tag_areas, tags, up: str, names=None) -> AreaTable:
    """The checked ``areas`` volumes and ``tag_areas`` of a level whose
    triangles carry ``tags`` (``Level.tags``), input axes ``up``; a
    ``GraphError`` naming the volume (``areas[i]``) or tag that is wrong.
    ``names``: the names known already (a level's ``area_names``, for
    run-time ``areas=`` updates; not changed), new names taking the next
    ids free of them; None: the built-in names."""
    table = AreaTable() if names is None else AreaTable(names=dict(names))
    if areas is not None:
        if isinstance(areas, (str, bytes, dict)) or not hasattr(areas, "__iter__"):
            raise GraphError(f"areas must be a list of volumes ({{'convex': ...}}, "
                             f"{{'box': ...}} or {{'cylinder': ...}}, each with 'area'), got "
                             f"{validate.describe(areas)}")
        for i, spec in enumerate(areas):
            where = f"areas[{i}]"
            if not isinstance(spec, dict):
                raise GraphError(f"{where} must be a mapping with one of "
                                 f"{', '.join(_SHAPES)} and 'area', got "
                                 f"{validate.describe(spec)}")
            shapes = [k for k in _SHAPES if k in spec]
            if len(shapes) != 1:
                raise GraphError(f"{where} must have exactly one shape key of "
                                 f"{', '.join(_SHAPES)}, got keys "
                                 f"{', '.join(map(repr, spec)) or 'none'}")
            if "area" not in spec:
                raise GraphError(f"{where} has no 'area' (a name or an id "
                                 f"{NULL_AREA}..{WALKABLE_AREA})")
            volume = _READERS[shapes[0]](spec, where, up, table)
            known = {shapes[0], "area"} | ({f"{up}min", f"{up}max"} if shapes[0] == "convex"
                                            else set())
            extra = sorted(set(map(str, spec)) - known)
            if extra:
                raise GraphError(f"{where}: unknown key(s) {', '.join(map(repr, extra))} for a "
                                 f"{shapes[0]} volume; its keys: {', '.join(sorted(known))}")
            table.volumes.append(volume)
    if tag_areas is not None:
        if not isinstance(tag_areas, dict):
            raise GraphError(f"tag_areas must be a mapping of tag (OBJ material or group "
                             f"name) to area, got {validate.describe(tag_areas)}")
        ids = np.full(len(tags), WALKABLE_AREA, np.uint8)
        for tag, area in tag_areas.items():
            if tag not in tags:
                listed = ", ".join(repr(t) for t in tags if t) or "none"
                raise GraphError(f"tag_areas: the level has no tag {tag!r}; its tags: {listed}")
            ids[tags.index(tag)] = table.area_id(area, f"tag_areas[{tag!r}]")
        table.triangle_ids = ids
    return table
