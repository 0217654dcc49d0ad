"""Levels made by hand for the level pipeline's tests: flat and sloped
quads joined into one triangle soup (``quad``, ``join``), and compact
heightfields from floor heights given per cell (``chf_from_floors``, a
plain-Python builder independent of the voxel kernels); and where a point
stands on a level's mesh, read without its kernels (``OnMesh``: the
polygons' ground projections with shapely, the detail triangles'
heights by plain barycentric reading, ``surface_height``)."""
from __future__ import annotations

import math

import numpy as np
import shapely

from navcore_levels.heightfield import (CompactHeightfield, DIR_DX, DIR_DZ, OPEN_TOP,
                                        WALKABLE_AREA)


def chf_from_floors(floors, *, walkable_height=10, walkable_climb=4, cs=0.3, ch=0.2,
                    border_size=0, areas=None) -> CompactHeightfield:
    """``floors``: int array (L, height, width) of floor heights in cell
    heights, -1 where a layer has no floor; a cell's floors are sorted
    bottom-up. ``areas`` (same shape, optional) gives each floor's area id
    (``WALKABLE_AREA`` by default). Neighbours follow Recast's rule: the
    step is at most ``walkable_climb`` and the shared opening at least
    ``walkable_height``."""
    floors = np.asarray(floors, dtype=np.int64)
    if floors.ndim == 2:
        floors = floors[None]
    layers, height, width = floors.shape
    area_in = np.full(floors.shape, WALKABLE_AREA) if areas is None else np.asarray(areas)
    cell_index = np.zeros(width * height, np.int32)
    cell_count = np.zeros(width * height, np.int32)
    ys, hs, ars = [], [], []
    for z in range(height):
        for x in range(width):
            c = x + z * width
            cell = sorted((int(floors[k, z, x]), int(area_in[k, z, x]))
                          for k in range(layers) if floors[k, z, x] >= 0)
            cell_index[c] = len(ys)
            cell_count[c] = len(cell)
            for i, (y, a) in enumerate(cell):
                top = cell[i + 1][0] if i + 1 < len(cell) else None
                ys.append(y)
                hs.append(OPEN_TOP if top is None else min(top - y, OPEN_TOP))
                ars.append(a)
    n = len(ys)
    y = np.array(ys, np.int32)
    h = np.array(hs, np.int32)
    nbr = np.full((n, 4), -1, np.int32)
    for z in range(height):
        for x in range(width):
            c = x + z * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                for d in range(4):
                    nx, nz = x + DIR_DX[d], z + DIR_DZ[d]
                    if not (0 <= nx < width and 0 <= nz < height):
                        continue
                    nc = nx + nz * width
                    for t in range(cell_index[nc], cell_index[nc] + cell_count[nc]):
                        bot = max(y[s], y[t])
                        top = min(int(y[s]) + int(h[s]), int(y[t]) + int(h[t]))
                        if top - bot >= walkable_height and abs(int(y[t]) - int(y[s])) <= walkable_climb:
                            nbr[s, d] = t
                            break
    return CompactHeightfield(
        width=width, height=height, border_size=border_size, walkable_height=walkable_height,
        walkable_climb=walkable_climb, bmin=np.zeros(3), cs=cs, ch=ch,
        cell_index=cell_index, cell_count=cell_count, y=y, h=h, neighbors=nbr,
        area=np.array(ars, np.uint8), dist=np.zeros(n, np.uint16),
        region=np.zeros(n, np.int32))


def quad(x0, x1, z0, z1, y0, y1=None, along="x"):
    """Two upward-facing triangles over ``[x0, x1] x [z0, z1]``, at height
    ``y0`` (rising to ``y1`` along ``along`` when given): vertices, triangles."""
    y1 = y0 if y1 is None else y1
    if along == "x":
        ys = (y0, y1, y1, y0)
    else:
        ys = (y0, y0, y1, y1)
    v = [[x0, ys[0], z0], [x1, ys[1], z0], [x1, ys[2], z1], [x0, ys[3], z1]]
    return np.array(v, dtype=float), np.array([[0, 2, 1], [0, 3, 2]])


def join(*parts):
    verts, tris, n = [], [], 0
    for v, t in parts:
        verts.append(v)
        tris.append(t + n)
        n += len(v)
    return np.vstack(verts), np.vstack(tris)


def tick_until_rebuilt(world, rebuilds, tries: int = 10) -> None:
    """Tick ``world`` until its background tile rebuilds (``rebuilds``,
    ``navcore_levels.updates.rebuilds_of``) are swapped in; at least one
    must have run in the background."""
    for _ in range(tries):
        assert rebuilds.wait(60)
        world.tick()
        if not rebuilds.pending:
            break
    assert not rebuilds.pending and rebuilds.background >= 1


def polygons(g):
    """Each polygon of level graph ``g`` on the ground plane (shapely)."""
    return [shapely.Polygon(g.vertices[g.poly_verts[g.poly_start[p]:g.poly_start[p + 1]]])
            for p in range(g.num_nodes)]


def surface_height(g, p, x, z):
    """The height of the level's detail triangles of polygon ``p`` at
    ``(x, z)`` (y up): the triangle holding it, else the nearest."""
    d = g.level_detail
    best = (math.inf, math.nan)
    for tri in d.tris[d.tri_offsets[p]:d.tri_offsets[p + 1]]:
        a, b, c = d.verts[tri]
        den = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])
        if den == 0:
            continue
        u = ((x - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (z - a[2])) / den
        v = ((b[0] - a[0]) * (z - a[2]) - (x - a[0]) * (b[2] - a[2])) / den
        off = max(-u, -v, u + v - 1.0, 0.0)
        if off < best[0]:
            best = (off, a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]))
    return best[1]


class OnMesh:
    """Checks points against the polygons' projections and heights."""

    def __init__(self, g):
        self.g, self.polys = g, polygons(g)
        self.tree = shapely.STRtree(self.polys)

    def misses(self, points, tol=1e-6):
        """Indices of ``points`` ((k, 3), the level's axes) that lie on no
        polygon at its surface's height (the detail mesh is in Recast's
        frame, y up: a z-up level's (x, y, z) is its (x, z, -y))."""
        return [i for i, p in enumerate(points) if not self.under(p, tol)]

    def under(self, point, tol=1e-6) -> list:
        """The walkable polygons whose ground projection holds ``point``
        (the level's axes) and whose surface there is at its height."""
        x, y, z = point
        z_up = self.g.up == "z"
        gx, gy, h = (x, y, z) if z_up else (x, z, y)
        under = self.tree.query(shapely.Point(gx, gy), predicate="dwithin", distance=1e-7)
        rz = -gy if z_up else gy
        return [int(p) for p in under
                if self.g.walkable[p] and abs(surface_height(self.g, p, gx, rz) - h) <= tol]
