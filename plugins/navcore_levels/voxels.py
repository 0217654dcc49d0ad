"""The voxel stages of a level build, Recast's first half: which triangles
are walkable (``mark_walkable``), the solid spans they fill
(``rasterize``), what an agent can stand on (``filter_walkable``), the open
space above it with its links (``compact``), the agent's radius kept off
walls (``erode``) and area volumes (``mark_convex_area``, ``mark_box_area``,
``mark_cylinder_area``).

Every function checks its input and returns new arrays (the heightfields
it is given are left as they are); the work is done by numba kernels in
``_rasterize`` and ``_spans``.

>>> from navcore_levels import LevelConfig
>>> from navcore_levels.levelfile import level_from_arrays
>>> floor = level_from_arrays([(0, 0, 0), (0, 0, 3), (3, 0, 3), (3, 0, 0)],
...                           [(0, 1, 2), (0, 2, 3)])
>>> cfg = LevelConfig(agent_radius=0)
>>> areas = mark_walkable(floor.vertices, floor.triangles, cfg)
>>> hf = rasterize(floor.vertices, floor.triangles, areas, cfg)
>>> hf.width, hf.height, hf.span_count
(10, 10, 100)
>>> chf = compact(filter_walkable(hf, cfg), cfg)
>>> int((chf.area == 63).sum())     # the ring of cells at the grid's edge is a ledge
64
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from navcore import limits, validate
from navcore.errors import CapacityError, GraphError

from . import _rasterize, _spans
from .config import LevelConfig
from .heightfield import NULL_AREA, WALKABLE_AREA, CompactHeightfield
from .levelfile import checked_arrays

#: bytes per grid cell while rasterizing: the column's list head and its
#: packed start
BYTES_PER_COLUMN = 8
#: bytes per solid span while rasterizing: bounds, area and link in the pool,
#: the packed copy
BYTES_PER_SPAN = 22
#: bytes per compact span: y, h, area, 4 neighbours, dist, region, and the
#: erosion's distances
BYTES_PER_OPEN_SPAN = 35
#: largest area id (Recast's ``RC_WALKABLE_AREA``)
MAX_AREA = WALKABLE_AREA


@dataclass
class Heightfield:
    """Solid spans of a rasterized level (Recast's ``rcHeightfield``),
    packed by column.

    Grid: ``width`` x ``height`` cells (x, z) of ``cs`` by ``cs`` from
    ``bmin`` to ``bmax`` (float64 (3,), float32 values: the bounds Recast
    computes), cell height ``ch``; cell ``(x, z)`` is ``c = x + z * width``.

    Spans: the solid spans of cell ``c`` are
    ``column_start[c]:column_start[c + 1]`` (int32 (width*height + 1,)),
    bottom-up and disjoint:
        smin: int32 (spans,), bottom, in whole cell heights above ``bmin.y``.
        smax: int32 (spans,), top (exclusive); a span's top is the floor
            an agent may stand on, the next span's ``smin`` its ceiling.
        area: uint8 (spans,), area id of the floor, ``NULL_AREA`` where
            nothing walks.
    """
    width: int
    height: int
    bmin: np.ndarray
    bmax: np.ndarray
    cs: float
    ch: float
    column_start: np.ndarray
    smin: np.ndarray
    smax: np.ndarray
    area: np.ndarray

    @property
    def span_count(self) -> int:
        return int(self.smin.shape[0])

    def column(self, x: int, z: int) -> np.ndarray:
        """(k, 3) ``smin, smax, area`` of the spans of cell (x, z), bottom-up."""
        if not (validate.is_int(x) and validate.is_int(z) and 0 <= x < self.width
                and 0 <= z < self.height):
            raise GraphError(f"cell ({x!r}, {z!r}) is not in the {self.width} x {self.height} "
                             f"grid")
        c = int(x) + int(z) * self.width
        s = slice(self.column_start[c], self.column_start[c + 1])
        return np.column_stack([self.smin[s], self.smax[s], self.area[s]])


def _config(config) -> LevelConfig:
    if not isinstance(config, LevelConfig):
        raise GraphError(f"config must be a LevelConfig, got {config!r}")
    return config


def _geometry(vertices, triangles) -> tuple[np.ndarray, np.ndarray]:
    """Checked ``vertices`` as float32 (Recast's precision) and ``triangles``
    as int32."""
    verts, tris = checked_arrays(vertices, triangles)
    return verts.astype(np.float32), tris


def _area_ids(value, count: int, what: str, allow_null: bool) -> np.ndarray:
    """``value`` (one id or ``count`` of them) as uint8 area ids."""
    low = NULL_AREA if allow_null else 1
    if validate.is_int(value):
        if not low <= int(value) <= MAX_AREA:
            raise GraphError(f"{what} is area id {int(value)}; area ids are {low}..{MAX_AREA}")
        arr = np.full(count, int(value), np.int64)
    else:
        arr = validate.array(value, what, GraphError)
        if arr.shape != (count,) or (arr.size and not validate.int_dtype(arr.dtype)):
            raise GraphError(f"{what} must be one integer area id or {count} of them, got "
                             f"{arr.dtype} of shape {arr.shape}")
    bad = (arr < low) | (arr > MAX_AREA)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise GraphError(f"{what} holds area id {int(arr[i])} (index {i}); area ids are "
                         f"{low}..{MAX_AREA}")
    return arr.astype(np.uint8)


def mark_walkable(vertices, triangles, config: LevelConfig, tri_area=None) -> np.ndarray:
    """uint8 (M,) area ids: ``tri_area`` (one id or one per triangle, 0..63;
    ``WALKABLE_AREA`` by default) for each triangle whose slope is below
    ``config.max_slope``, ``NULL_AREA`` for the steeper ones (Recast's
    ``rcMarkWalkableTriangles``); a triangle given ``NULL_AREA`` is solid
    but never walked on. A walkable triangle faces up: its
    vertices run counter-clockwise seen from above (``(v1-v0) x (v2-v0)``
    points up)."""
    verts, tris = _geometry(vertices, triangles)
    return walkable_checked(verts, tris, _config(config), tri_area)


def walkable_checked(verts, tris, cfg: LevelConfig, tri_area=None) -> np.ndarray:
    """``mark_walkable`` of ``_geometry``'s checked arrays."""
    walk = _area_ids(WALKABLE_AREA if tri_area is None else tri_area, len(tris), "tri_area",
                     allow_null=True)
    limit = np.cos(np.float32(cfg.max_slope) / np.float32(180.0) * np.float32(3.14159265))
    out = np.zeros(len(tris), np.uint8)
    _rasterize.mark_walkable_triangles(verts, tris, np.float32(limit), walk, out)
    return out


def grid_size(bmin, bmax, cs: float) -> tuple[int, int]:
    """Cells along x and z of a grid over ``bmin``..``bmax`` (Recast's
    ``rcCalcGridSize``: the extent over ``cs``, rounded, in float32).

    >>> grid_size((-28.889317, -4.869517, -46.300152), (62.494808, 17.010754, 31.053141), 0.3)
    (305, 258)
    """
    lo = np.asarray(bmin, np.float32)
    hi = np.asarray(bmax, np.float32)
    c = np.float32(cs)
    half = np.float32(0.5)
    return int((hi[0] - lo[0]) / c + half), int((hi[2] - lo[2]) / c + half)


def _bounds(verts32, bmin, bmax):
    if bmin is None:
        lo = verts32.min(axis=0) if len(verts32) else np.zeros(3, np.float32)
    else:
        lo = _xyz(bmin, "bmin").astype(np.float32)
    if bmax is None:
        hi = verts32.max(axis=0) if len(verts32) else np.zeros(3, np.float32)
    else:
        hi = _xyz(bmax, "bmax").astype(np.float32)
    if not (hi >= lo).all():
        raise GraphError(f"the grid's bounds must have bmax >= bmin on every axis, got bmin "
                         f"{lo.tolist()} and bmax {hi.tolist()}")
    return lo, hi


def rasterize(vertices, triangles, tri_areas, config: LevelConfig, bmin=None,
              bmax=None) -> Heightfield:
    """The solid spans of the triangles (Recast's ``rcRasterizeTriangles``
    with the flag-merge threshold ``config.walkable_climb``), over a grid
    spanning ``bmin``..``bmax`` (the vertices' bounds by default;
    triangles beyond it are cut off). ``tri_areas`` is
    ``mark_walkable``'s answer (uint8 area per triangle, 0..63).

    A grid or span pool that would not fit in memory is a
    ``CapacityError`` before anything is allocated."""
    cfg = _config(config)
    verts, tris = _geometry(vertices, triangles)
    areas = _area_ids(tri_areas, len(tris), "tri_areas", allow_null=True)
    lo, hi = _bounds(verts, bmin, bmax)
    return rasterize_checked(verts, tris, areas, cfg, lo, hi)


def rasterize_checked(verts, tris, areas, cfg: LevelConfig, lo, hi) -> Heightfield:
    """``rasterize`` of inputs already checked: ``verts`` float32 (N, 3),
    ``tris`` int32 (M, 3) indices into them (other vertices are not read),
    ``areas`` uint8 (M,), grid bounds ``lo``/``hi`` float32 (3,) with
    ``hi >= lo``."""
    width, height = checked_grid(lo, hi, cfg)
    cells = width * height
    # each triangle adds at most one span per cell of its footprint's box,
    # and a column holds at most one span per two cell heights
    spans_bound = _rasterize.spans_upper_bound(verts, tris, np.float32(cfg.cell_size), width,
                                               height)
    spans_bound = min(spans_bound, cells * (_rasterize.SPAN_MAX_HEIGHT + 1) // 2)
    if spans_bound > limits.MAX_NODES:
        raise too_many_spans(len(tris), width, height, spans_bound)
    limits.check_memory(f"a heightfield of {width} x {height} cells",
                        cells * BYTES_PER_COLUMN + min(spans_bound, 4 * cells) * BYTES_PER_SPAN)
    capacity = int(min(spans_bound, 2 * cells)) + 64
    cs32, ch32 = np.float32(cfg.cell_size), np.float32(cfg.cell_height)
    lists = _rasterize.rasterize_triangles(verts, tris, areas, lo, hi, cs32, ch32, width,
                                           height, cfg.walkable_climb, capacity)
    column_start, smin, smax, area = _rasterize.pack_columns(*lists)
    return Heightfield(width=width, height=height, bmin=lo.astype(np.float64),
                       bmax=hi.astype(np.float64), cs=cfg.cell_size, ch=cfg.cell_height,
                       column_start=column_start, smin=smin, smax=smax, area=area)


def too_many_spans(triangles: int, width: int, height: int, bound: int) -> CapacityError:
    return CapacityError(f"rasterizing {triangles} triangles into {width} x {height} "
                         f"cells may make {bound} spans, past the int32 limit")


def checked_grid(lo, hi, cfg: LevelConfig) -> tuple[int, int]:
    """The cells along x and z of a heightfield over ``lo``..``hi``
    (float32); ``GraphError`` for no cells, ``CapacityError`` for a level
    too tall for span heights or a grid past the int32 cell limit."""
    width, height = grid_size(lo, hi, cfg.cell_size)
    if width < 1 or height < 1:
        raise GraphError(f"the grid over bmin {lo.tolist()} .. bmax {hi.tolist()} has "
                         f"{width} x {height} cells of {cfg.cell_size}: nothing to rasterize")
    tall = float(hi[1] - lo[1]) / cfg.cell_height
    if tall > _rasterize.SPAN_MAX_HEIGHT:
        # span heights are 13 bits (as Recast's): a taller level would be
        # flattened into wrong heights
        raise CapacityError(
            f"the level is {float(hi[1] - lo[1]):g} units tall, {tall:.0f} cell heights of "
            f"{cfg.cell_height}: more than the {_rasterize.SPAN_MAX_HEIGHT} a heightfield "
            f"holds; use cell_height >= {float(hi[1] - lo[1]) / _rasterize.SPAN_MAX_HEIGHT:.4g}")
    if width * height > limits.MAX_NODES:
        raise CapacityError(f"a heightfield of {width} x {height} cells exceeds the int32 "
                            f"cell limit of {limits.MAX_NODES}")
    return width, height


def _heightfield(hf) -> Heightfield:
    if not isinstance(hf, Heightfield):
        raise GraphError(f"expected a Heightfield (from rasterize), got {hf!r}")
    return hf


def filter_walkable(hf: Heightfield, config: LevelConfig, *, low_hanging: bool = True,
                    ledges: bool = True, low_height: bool = True) -> Heightfield:
    """What an agent can stand on, as RecastDemo filters it, in this order:
    a non-walkable span at most ``walkable_climb`` above a walkable one
    takes its area (``rcFilterLowHangingWalkableObstacles``: kerbs, stair
    steps); spans beside a drop of more than ``walkable_climb``, or whose
    reachable neighbours' floors differ by more than it, are not walkable
    (``rcFilterLedgeSpans``); nor are spans with less than
    ``walkable_height`` of room above (``rcFilterWalkableLowHeightSpans``).
    Returns a heightfield with the new areas (``hf`` is left as it is)."""
    hf = _heightfield(hf)
    cfg = _config(config)
    for name, flag in (("low_hanging", low_hanging), ("ledges", ledges),
                       ("low_height", low_height)):
        validate.boolean(flag, name, GraphError)
    area = hf.area.copy()
    if low_hanging:
        _spans.filter_low_hanging_obstacles(hf.column_start, hf.smax, area, cfg.walkable_climb)
    if ledges:
        _spans.filter_ledges(hf.column_start, hf.smin, hf.smax, area, hf.width, hf.height,
                             cfg.walkable_height, cfg.walkable_climb)
    if low_height:
        _spans.filter_low_height(hf.column_start, hf.smin, hf.smax, area, cfg.walkable_height)
    return dataclasses.replace(hf, area=area)


def compact(hf: Heightfield, config: LevelConfig) -> CompactHeightfield:
    """The open space above every walkable span, linked to its neighbours
    (Recast's ``rcBuildCompactHeightfield`` with ``config.walkable_height``
    and ``config.walkable_climb``); see ``CompactHeightfield``. Spans that
    are not walkable are left out (they still bound the space below
    them)."""
    return compact_checked(_heightfield(hf), _config(config))


def compact_checked(hf: Heightfield, cfg: LevelConfig) -> CompactHeightfield:
    """``compact`` of a heightfield ``rasterize`` made."""
    cells = hf.width * hf.height
    walkable = int(np.count_nonzero(hf.area))
    limits.check_memory(f"a compact heightfield of {walkable} spans",
                        walkable * BYTES_PER_OPEN_SPAN + cells * 8)
    cell_index, cell_count, y, h, area, neighbors = _spans.compact_spans(
        hf.column_start, hf.smin, hf.smax, hf.area, hf.width, hf.height,
        cfg.walkable_height, cfg.walkable_climb)
    return CompactHeightfield(
        width=hf.width, height=hf.height, border_size=0, walkable_height=cfg.walkable_height,
        walkable_climb=cfg.walkable_climb, bmin=hf.bmin.copy(), cs=hf.cs, ch=hf.ch,
        cell_index=cell_index, cell_count=cell_count, y=y, h=h, neighbors=neighbors,
        area=area, dist=np.zeros(len(y), np.uint16), region=np.zeros(len(y), np.int32))


def _compact(chf) -> CompactHeightfield:
    if not isinstance(chf, CompactHeightfield):
        raise GraphError(f"expected a CompactHeightfield (from compact), got {chf!r}")
    return chf


def _cells(value, what: str) -> int:
    if not validate.is_int(value) or int(value) < 0:
        raise GraphError(f"{what} must be a whole number of cells >= 0, got {value!r}")
    return int(value)


def erode(chf: CompactHeightfield, radius: int) -> CompactHeightfield:
    """The walkable area shrunk by ``radius`` cells (``config.walkable_radius``):
    a span closer than that to a non-walkable span or a missing neighbour
    is no longer walkable (Recast's ``rcErodeWalkableArea``). Distance is
    Recast's chamfer measure: 2 per straight step, 3 per diagonal step,
    and a span is kept when it is at least ``2 * radius``. Returns a
    compact heightfield with the new areas."""
    chf = _compact(chf)
    r = _cells(radius, "radius")
    area = chf.area.copy()
    if r > 0:
        _spans.erode_area(chf.cell_index, chf.cell_count, chf.neighbors, area, r)
    return dataclasses.replace(chf, area=area)


class AreaBox(NamedTuple):
    """A volume of ``checked_volumes``: ``mark_box_area``'s arguments."""
    bmin: np.ndarray
    bmax: np.ndarray
    area: np.uint8


class AreaCylinder(NamedTuple):
    """A volume of ``checked_volumes``: ``mark_cylinder_area``'s arguments."""
    center: np.ndarray
    radius: float
    height: float
    area: np.uint8


def mark_volume(chf: CompactHeightfield, volume) -> CompactHeightfield:
    """``chf`` with one volume of ``checked_volumes`` marked."""
    if isinstance(volume, AreaBox):
        return mark_box_area(chf, *volume)
    if isinstance(volume, AreaCylinder):
        return mark_cylinder_area(chf, *volume)
    return mark_convex_area(chf, *volume)


def checked_volumes(volumes) -> list:
    """``volumes`` (convex volumes ``(polygon_xz, ymin, ymax, area)``, as
    :func:`mark_convex_area` takes them, or ``AreaBox``/``AreaCylinder``
    records, checked where they were made) checked before any stage runs:
    a list of ``((k, 2) float64, ymin, ymax, uint8 area)`` and the
    records; ``GraphError`` naming the volume that is wrong."""
    if isinstance(volumes, (str, bytes)) or not hasattr(volumes, "__iter__") \
            or isinstance(volumes, np.ndarray) and volumes.ndim == 0:
        raise GraphError(f"volumes must be a list of (polygon_xz, ymin, ymax, area), got "
                         f"{validate.describe(volumes)}")
    out = []
    for i, vol in enumerate(volumes):
        if isinstance(vol, (AreaBox, AreaCylinder)):
            out.append(vol)
            continue
        if isinstance(vol, (str, bytes)) or not hasattr(vol, "__len__") or len(vol) != 4:
            raise GraphError(f"volumes[{i}] must be (polygon_xz, ymin, ymax, area), got "
                             f"{validate.describe(vol)}")
        poly = validate.points(vol[0], f"volumes[{i}] polygon_xz", GraphError)
        if len(poly) < 3:
            raise GraphError(f"volumes[{i}] polygon_xz must have 3 or more points, got "
                             f"{len(poly)}")
        out.append((poly, _height(vol[1], f"volumes[{i}] ymin"),
                    _height(vol[2], f"volumes[{i}] ymax"), _area_id(vol[3], f"volumes[{i}] area")))
    return out


def _area_id(value, what="area") -> np.uint8:
    if not validate.is_int(value) or not NULL_AREA <= int(value) <= MAX_AREA:
        raise GraphError(f"{what} must be an area id in {NULL_AREA}..{MAX_AREA}, got {value!r}")
    return np.uint8(int(value))


def _xyz(value, what) -> np.ndarray:
    """A finite world point of exactly three numbers (x, y, z)."""
    if np.shape(value) != (3,):
        raise GraphError(f"{what} must be a world point (x, y, z), got {value!r}")
    return validate.point(value, 3, what, GraphError)


def _height(value, what) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)) \
            or not math.isfinite(value):
        raise GraphError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def mark_convex_area(chf: CompactHeightfield, polygon_xz, ymin: float, ymax: float,
                     area: int) -> CompactHeightfield:
    """Gives ``area`` to the walkable spans whose cell centre lies inside
    the convex ``polygon_xz`` ((k, 2) world (x, z) points, k >= 3) and
    whose floor is between ``ymin`` and ``ymax`` (Recast's
    ``rcMarkConvexPolyArea``)."""
    chf = _compact(chf)
    poly = validate.points(polygon_xz, "polygon_xz", GraphError)
    if len(poly) < 3:
        raise GraphError(f"polygon_xz must have 3 or more points, got {len(poly)}")
    y_lo, y_hi = _height(ymin, "ymin"), _height(ymax, "ymax")
    new_area = _area_id(area)
    out = chf.area.copy()
    _spans.mark_convex_polygon(chf.cell_index, chf.cell_count, chf.y, out, chf.width,
                               chf.height, np.asarray(chf.bmin, np.float64), float(chf.cs),
                               float(chf.ch), poly, float(y_lo), float(y_hi), new_area)
    return dataclasses.replace(chf, area=out)


def mark_box_area(chf: CompactHeightfield, bmin, bmax, area: int) -> CompactHeightfield:
    """Gives ``area`` to the walkable spans whose floor lies in the box
    ``bmin``..``bmax`` (world (x, y, z) corners; Recast's ``rcMarkBoxArea``)."""
    chf = _compact(chf)
    lo = _xyz(bmin, "bmin")
    hi = _xyz(bmax, "bmax")
    new_area = _area_id(area)
    out = chf.area.copy()
    _spans.mark_box(chf.cell_index, chf.cell_count, chf.y, out, chf.width, chf.height,
                    np.asarray(chf.bmin, np.float64), float(chf.cs), float(chf.ch), lo, hi,
                    new_area)
    return dataclasses.replace(chf, area=out)


def mark_cylinder_area(chf: CompactHeightfield, center, radius: float, height: float,
                       area: int) -> CompactHeightfield:
    """Gives ``area`` to the walkable spans whose cell centre is within
    ``radius`` of the upright axis through ``center`` (world (x, y, z), the
    cylinder's base) and whose floor is at most ``height`` above it
    (Recast's ``rcMarkCylinderArea``)."""
    chf = _compact(chf)
    c = _xyz(center, "center")
    r = validate.distance(radius, "radius")
    tall = validate.distance(height, "height")
    new_area = _area_id(area)
    out = chf.area.copy()
    _spans.mark_cylinder(chf.cell_index, chf.cell_count, chf.y, out, chf.width, chf.height,
                         np.asarray(chf.bmin, np.float64), float(chf.cs), float(chf.ch), c,
                         r, tall, new_area)
    return dataclasses.replace(chf, area=out)
