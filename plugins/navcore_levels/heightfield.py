"""The arrays the level pipeline's stages pass to each other.

Coordinates follow Recast: ``y`` is up, the grid's cells run along ``x``
(columns, ``0..width-1``) and ``z`` (rows, ``0..height-1``), cell ``(x, z)``
is ``x + z * width`` and covers world ``[bmin.x + x*cs, bmin.x + (x+1)*cs)``
by ``[bmin.z + z*cs, ...)``. Heights are whole cell heights above
``bmin.y``. The four neighbour directions are Recast's::

    direction   0        1       2       3
    (dx, dz)    (-1, 0)  (0, 1)  (1, 0)  (0, -1)

A stage is a numba kernel over these arrays behind a Python function that
takes and returns the dataclasses here; nothing is stored per cell or per
span in Python objects.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Area id of a span nothing may walk on (Recast's ``RC_NULL_AREA``).
NULL_AREA = 0
#: Area id of plain walkable ground (Recast's ``RC_WALKABLE_AREA``); other
#: ids ``1..62`` are user areas (water, road, ...) from tags and volumes.
WALKABLE_AREA = 63
#: Set in a region id for the border regions a tile's padding gets
#: (Recast's ``RC_BORDER_REG``); such spans belong to no polygon.
BORDER_REGION = 0x8000
#: Clearance stored for a span with nothing above it.
OPEN_TOP = 0xFFFF

DIR_DX = np.array([-1, 0, 1, 0], dtype=np.int32)
DIR_DZ = np.array([0, 1, 0, -1], dtype=np.int32)


@dataclass
class CompactHeightfield:
    """The open space above walkable floors, one span per floor per cell
    (Recast's ``rcCompactHeightfield``).

    Grid: ``width`` x ``height`` cells of ``cs`` by ``cs``, cell height
    ``ch``, world origin ``bmin`` (3,) float64, ``border_size`` cells of
    padding on each side (0 for a single-tile build). ``walkable_height``
    and ``walkable_climb`` are the agent's clearance and step in cell
    heights.

    Spans (one per walkable floor; a column's spans are stored bottom-up and
    contiguously):
        cell_index: int32 (width*height,), first span of each cell.
        cell_count: int32 (width*height,), number of spans in each cell.
        y: int32 (spans,), floor height (the solid span's top).
        h: int32 (spans,), clearance above the floor, ``OPEN_TOP`` if none.
        neighbors: int32 (spans, 4), the span index reached by stepping in
            each direction (a floor within ``walkable_climb`` with room for
            the agent in between), -1 where none is.
        area: uint8 (spans,), area id, ``NULL_AREA`` where nothing walks.
        dist: uint16 (spans,), distance-field value (filled by the
            partition; zeros before it).
        region: int32 (spans,), region id, 0 for none (filled by the
            partition), ``BORDER_REGION`` bit for tile padding.
    """
    width: int
    height: int
    border_size: int
    walkable_height: int
    walkable_climb: int
    bmin: np.ndarray
    cs: float
    ch: float
    cell_index: np.ndarray
    cell_count: np.ndarray
    y: np.ndarray
    h: np.ndarray
    neighbors: np.ndarray
    area: np.ndarray
    dist: np.ndarray
    region: np.ndarray
    max_region: int = 0

    @property
    def span_count(self) -> int:
        return int(self.y.shape[0])

    @property
    def bmax(self) -> np.ndarray:
        top = int(self.y.max()) + self.walkable_height if self.span_count else 0
        return self.bmin + np.array([self.width * self.cs, top * self.ch, self.height * self.cs])


@dataclass
class PolyMesh:
    """Convex polygons over the walkable surface (Recast's ``rcPolyMesh``).

    verts: int32 (V, 3), vertex ``(x, y, z)`` in cells and cell heights
        from ``bmin``; world position ``bmin + (x*cs, y*ch, z*cs)``.
    polys: int32 (P, nvp), vertex indices of each polygon, -1 after its
        last; Recast's winding (clockwise seen from above with x right and
        z down, i.e. the signed area sum ``x_j*z_{j+1} - x_{j+1}*z_j`` is
        negative).
    neighbors: int32 (P, nvp), the polygon across edge ``(v_j, v_{j+1})``,
        -1 for a wall; for a tile's outer edge ``-2 - d`` where ``d`` is the
        direction (0..3 as above) of the tile beyond.
    regions: int32 (P,), the region each polygon came from.
    areas: uint8 (P,), area id of each polygon.
    """
    verts: np.ndarray
    polys: np.ndarray
    neighbors: np.ndarray
    regions: np.ndarray
    areas: np.ndarray
    nvp: int
    bmin: np.ndarray
    cs: float
    ch: float
    border_size: int = 0

    @property
    def poly_count(self) -> int:
        return int(self.polys.shape[0])

    def world_vertices(self) -> np.ndarray:
        """(V, 3) float64 world coordinates of ``verts``."""
        scale = np.array([self.cs, self.ch, self.cs])
        return self.bmin + self.verts.astype(np.float64) * scale
