"""Region outlines: the contour stage of the level pipeline (Recast's
``rcBuildContours``).

Each region of a :class:`~navcore_levels.heightfield.CompactHeightfield`
is traced along the cell edges where it meets a wall or another region
(one raw vertex per cell edge, at the edge's clockwise corner, at the
highest floor around that corner), then simplified: vertices where the
neighbouring region or the area changes are kept, so two regions share
the same vertices along their common border; along walls and area borders
vertices are added back until every traced vertex lies within
``max_error`` cells of the outline, and wall edges longer than
``max_edge_len`` cells are split. A region with holes (an island of wall
inside it) gives an outline and hole rings; each hole is joined to the
outline by a diagonal so the region is one ring the triangulator can cut.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from navcore import validate
from navcore.errors import GraphError

from ._contours import (AREA_BORDER, BORDER_VERTEX, REGION_MASK, TESS_AREA_EDGES,
                        TESS_WALL_EDGES, build_contours_kernel, check_span_links)
from .heightfield import BORDER_REGION, DIR_DX, DIR_DZ, CompactHeightfield

__all__ = ["ContourSet", "build_contours", "CONTOUR_TESS_WALL_EDGES",
           "CONTOUR_TESS_AREA_EDGES", "CONTOUR_REGION_MASK", "CONTOUR_BORDER_VERTEX",
           "CONTOUR_AREA_BORDER"]

_log = logging.getLogger("navcore")

#: ``build_contours(flags=...)``: split long edges along walls.
CONTOUR_TESS_WALL_EDGES = TESS_WALL_EDGES
#: ``build_contours(flags=...)``: split long edges between areas.
CONTOUR_TESS_AREA_EDGES = TESS_AREA_EDGES
#: Column 3 of a contour vertex, low bits: the region across the edge that
#: starts at the vertex (0: a wall).
CONTOUR_REGION_MASK = REGION_MASK
#: Column 3 bit: the vertex sits on a tile border between two cells of one
#: area; the polygon mesh removes it.
CONTOUR_BORDER_VERTEX = BORDER_VERTEX
#: Column 3 bit: the edge that starts at the vertex separates two areas.
CONTOUR_AREA_BORDER = AREA_BORDER


@dataclass
class ContourSet:
    """Every region's outline, simplified and as traced, in flat arrays.

    Contour ``i`` (``0..count-1``) belongs to region ``regions[i]`` (int32)
    with area id ``areas[i]`` (uint8). Its simplified ring is
    ``verts[vert_start[i] : vert_start[i] + vert_count[i]]`` and its traced
    ring ``raw_verts[raw_start[i] : raw_start[i] + raw_count[i]]``; both
    are int32 ``(n, 4)`` rows ``[x, y, z, flags]``: ``x, z`` a cell corner
    (cells from the tile's inner corner, ``border_size`` already taken
    off), ``y`` the floor height there in cell heights, and ``flags`` the
    region across the edge from this vertex to the next in its low 16 bits
    (``CONTOUR_REGION_MASK``; 0 for a wall) plus ``CONTOUR_AREA_BORDER``
    and ``CONTOUR_BORDER_VERTEX``. ``vert_start``/``vert_count``/
    ``raw_start``/``raw_count`` are int32.

    Rings are wound as :class:`~navcore_levels.heightfield.PolyMesh`'s
    polygons (negative shoelace sum ``x_j*z_{j+1} - x_{j+1}*z_j``); a hole
    is traced the other way round. A hole joined to its region's outline
    keeps its traced ring but has no simplified vertices
    (``vert_count[i] == 0``): the outline's ring then runs out to the hole
    along a diagonal, round it, and back. A region's outline may be
    missing (no contour) when simplification left fewer than 3 vertices;
    a hole that could not be joined (no outline, or no clear diagonal)
    keeps its own ring, wound as a hole, and a warning is logged.

    ``bmin`` (3,) float64 is the world position of corner ``(0, 0, 0)``
    (the heightfield's ``bmin`` moved in by the border), ``cs``/``ch`` the
    cell size and height, ``width``/``height`` the grid without border.
    """
    verts: np.ndarray
    vert_start: np.ndarray
    vert_count: np.ndarray
    raw_verts: np.ndarray
    raw_start: np.ndarray
    raw_count: np.ndarray
    regions: np.ndarray
    areas: np.ndarray
    bmin: np.ndarray
    cs: float
    ch: float
    width: int
    height: int
    border_size: int = 0
    max_error: float = 0.0

    @property
    def count(self) -> int:
        return int(self.regions.shape[0])

    def ring(self, i: int) -> np.ndarray:
        """The simplified ``(n, 4)`` vertices of contour ``i``."""
        s = int(self.vert_start[i])
        return self.verts[s:s + int(self.vert_count[i])]

    def raw_ring(self, i: int) -> np.ndarray:
        """The traced ``(n, 4)`` vertices of contour ``i``."""
        s = int(self.raw_start[i])
        return self.raw_verts[s:s + int(self.raw_count[i])]


def _int_array(owner, what, name, ndim, dtype, cols=None):
    """``owner.name`` as a C-contiguous ``dtype`` array of ``ndim``
    dimensions (``cols`` columns), or ``GraphError`` naming
    ``what name``."""
    arr = validate.array(getattr(owner, name, None), f"{what} {name}")
    if arr.ndim != ndim or (cols is not None and arr.shape[1] != cols) or \
            not (arr.size == 0 or validate.int_dtype(arr.dtype)):
        want = f"(n, {cols})" if cols is not None else "(n,)"
        raise GraphError(f"{what} {name} must be an integer array of shape {want}, "
                         f"got {arr.dtype} of shape {arr.shape}")
    if arr.dtype != dtype and arr.size and \
            (arr.min() < np.iinfo(dtype).min or arr.max() > np.iinfo(dtype).max):
        raise GraphError(f"{what} {name} holds {arr.min()}..{arr.max()}, outside "
                         f"{np.dtype(dtype).name}")
    return np.ascontiguousarray(arr, dtype=dtype)


def _whole_number(value, what):
    """An integer ``0..2**31-1`` (a grid size, a length in cells)."""
    if not validate.is_int(value) or not 0 <= int(value) < 2 ** 31:
        raise GraphError(f"{what} must be an integer >= 0 (below 2**31), got "
                         f"{validate.describe(value)}")
    return int(value)


def _grid_frame(owner, what) -> np.ndarray:
    """``owner.bmin`` (3 finite numbers, as float64), after checking
    ``owner.cs`` and ``owner.ch`` are finite and > 0."""
    bmin = validate.array(owner.bmin, f"{what} bmin", dtype=np.float64)
    if bmin.shape != (3,) or not np.isfinite(bmin).all():
        raise GraphError(f"{what} bmin must be 3 finite numbers, got {owner.bmin!r}")
    for name in ("cs", "ch"):
        if validate.distance(getattr(owner, name), f"{what} {name}") == 0:
            raise GraphError(f"{what} {name} must be a finite number > 0, got 0")
    return bmin


def check_heightfield(chf) -> tuple:
    """The arrays of ``chf`` the contour stage reads, checked (shapes,
    dtypes, span ranges, neighbours in the adjacent cell, region ids);
    ``GraphError`` naming the first thing wrong."""
    if not isinstance(chf, CompactHeightfield):
        raise GraphError(f"expected a CompactHeightfield, got {type(chf).__name__}")
    width = _whole_number(chf.width, "compact heightfield width")
    height = _whole_number(chf.height, "compact heightfield height")
    border = _whole_number(chf.border_size, "compact heightfield border_size")
    if 2 * border > min(width, height):
        raise GraphError(f"compact heightfield border_size {border} leaves no cells inside a "
                         f"{width} x {height} grid")
    _grid_frame(chf, "compact heightfield")
    cells = width * height
    cell_index = _int_array(chf, "compact heightfield", "cell_index", 1, np.int32)
    cell_count = _int_array(chf, "compact heightfield", "cell_count", 1, np.int32)
    for name, arr in (("cell_index", cell_index), ("cell_count", cell_count)):
        if arr.shape[0] != cells:
            raise GraphError(f"compact heightfield {name} has {arr.shape[0]} entries for "
                             f"{width} x {height} = {cells} cells")
    span_y = _int_array(chf, "compact heightfield", "y", 1, np.int32)
    spans = span_y.shape[0]
    neighbors = _int_array(chf, "compact heightfield", "neighbors", 2, np.int32, cols=4)
    area = _int_array(chf, "compact heightfield", "area", 1, np.uint8)
    region = _int_array(chf, "compact heightfield", "region", 1, np.int32)
    for name, arr in (("neighbors", neighbors), ("area", area), ("region", region)):
        if arr.shape[0] != spans:
            raise GraphError(f"compact heightfield {name} has {arr.shape[0]} rows for "
                             f"{spans} spans (len(y))")
    if (cell_count < 0).any():
        c = int(np.flatnonzero(cell_count < 0)[0])
        raise GraphError(f"compact heightfield cell_count[{c}] = {cell_count[c]} is negative")
    if int(cell_count.sum(dtype=np.int64)) != spans:
        raise GraphError(f"compact heightfield cells hold {int(cell_count.sum())} spans in all "
                         f"but y has {spans}")
    code, a, b = check_span_links(width, height, cell_index, cell_count, neighbors)
    if code:
        where = f"cell {a} (x={a % width}, z={a // width})"
        raise GraphError("compact heightfield " + {
            1: f"{where} lists span {b}, outside the {spans} spans",
            2: f"span {b} is listed by two cells (the second: {where})",
            3: f"span {b} belongs to no cell",
            4: f"neighbors[{a}, {b}] = {neighbors[a, b] if code == 4 else 0} is not a span "
               f"index (0..{spans - 1}) or -1",
            5: f"neighbors[{a}, {b}] = {neighbors[a, b] if code == 5 else 0} is not a span of "
               f"the cell in direction {b} (dx, dz = {DIR_DX[b % 4]}, {DIR_DZ[b % 4]}) of "
               f"span {a}'s cell"}[code])
    if spans and (region.min() < 0 or region.max() > 0xFFFF):
        raise GraphError(f"compact heightfield region holds {region.min()}..{region.max()}; "
                         f"region ids are 0..{BORDER_REGION - 1}, with the BORDER_REGION bit "
                         f"for tile padding")
    max_region = int((region & (BORDER_REGION - 1)).max()) if spans else 0
    return (width, height, border, cell_index, cell_count, span_y, neighbors, area, region,
            max_region)


def build_contours(chf: CompactHeightfield, max_error: float = 1.3, max_edge_len: int = 40,
                   flags: int = CONTOUR_TESS_WALL_EDGES) -> ContourSet:
    """Trace and simplify every region's outline (Recast's
    ``rcBuildContours``).

    ``chf``: a compact heightfield whose ``region`` is filled. ``max_error``:
    how far, in cells, the simplified outline may stray from the traced
    one along walls (``LevelConfig.edge_max_error``). ``max_edge_len``:
    longest wall edge in cells, 0 for no limit
    (``LevelConfig.max_edge_len_cells``). ``flags``: which edges are split
    when too long, ``CONTOUR_TESS_WALL_EDGES`` (Recast's default) and/or
    ``CONTOUR_TESS_AREA_EDGES``.
    """
    (width, height, border, cell_index, cell_count, span_y, neighbors, area, region,
     max_region) = check_heightfield(chf)
    max_error = validate.distance(max_error, "max_error")
    max_edge_len = _whole_number(max_edge_len, "max_edge_len")
    if not validate.is_int(flags) or not 0 <= int(flags) <= 3:
        raise GraphError(f"flags must be CONTOUR_TESS_WALL_EDGES and/or CONTOUR_TESS_AREA_EDGES "
                         f"(an integer 0..3), got {validate.describe(flags)}")
    return _trace(chf, width, height, border, cell_index, cell_count, span_y, neighbors, area,
                  region, max_region, max_error, max_edge_len, int(flags))


def contours_checked(chf: CompactHeightfield, max_error: float, max_edge_len: int,
                     flags: int = CONTOUR_TESS_WALL_EDGES) -> ContourSet:
    """``build_contours`` of a compact heightfield the pipeline made and
    partitioned (its arrays have their dtypes and layout; not checked
    again), with settings a ``LevelConfig`` checked."""
    border = int(chf.border_size)
    max_region = int((chf.region & (BORDER_REGION - 1)).max()) if chf.span_count else 0
    return _trace(chf, int(chf.width), int(chf.height), border, chf.cell_index, chf.cell_count,
                  chf.y, chf.neighbors, chf.area, chf.region, max_region, float(max_error),
                  int(max_edge_len), int(flags))


def contour_warning(loose: int, max_error: float) -> None:
    """Logs the holes a contour stage could not join to their outline."""
    _log.warning("build_contours: %d hole(s) could not be joined to their region's outline "
                 "(simplification too coarse? max_error=%g); the polygon mesh will not "
                 "cut them out", loose, max_error)


def _trace(chf, width, height, border, cell_index, cell_count, span_y, neighbors, area, region,
           max_region, max_error, max_edge_len, flags) -> ContourSet:
    (verts, vstart, vcount, raw, rstart, rcount, regions, areas, loose) = build_contours_kernel(
        width, height, border, cell_index, cell_count, span_y, neighbors, area, region,
        max_region, np.float32(max_error), max_edge_len, flags)
    if loose:
        contour_warning(loose, max_error)
    bmin = np.array(chf.bmin, dtype=np.float64)
    bmin[0] += border * chf.cs
    bmin[2] += border * chf.cs
    return ContourSet(verts=verts, vert_start=vstart, vert_count=vcount, raw_verts=raw,
                      raw_start=rstart, raw_count=rcount, regions=regions, areas=areas,
                      bmin=bmin, cs=float(chf.cs), ch=float(chf.ch), width=width - 2 * border,
                      height=height - 2 * border, border_size=border, max_error=max_error)
