"""Kernels over packed span columns: the walkability filters, compaction
into the open spans above floors, erosion by the agent's radius and area
volumes (Recast's ``RecastFilter.cpp``, ``rcBuildCompactHeightfield`` and
``RecastArea.cpp``).

A heightfield here is packed: the solid spans of cell ``c`` are
``column_start[c]:column_start[c+1]``, bottom-up, so the span above ``s``
is ``s + 1`` while it is in the same column.
"""
from __future__ import annotations

import numpy as np
from numba import njit

# the chamfer passes are the distance field's (regions), shared
from ._distance import _chamfer_pass
from .heightfield import OPEN_TOP

#: the height Recast gives the top of the open space above a column's last
#: span
_SKY = 0xFFFF


@njit(cache=True, nogil=True)
def filter_low_hanging_obstacles(column_start, smax, area, walkable_climb):
    """A non-walkable span whose top is at most ``walkable_climb`` above a
    walkable span right below it gets that span's area (a kerb or a stair
    step an agent can step onto); only the first such span above a
    walkable one, as in Recast."""
    for c in range(column_start.shape[0] - 1):
        below_walkable = False
        below_area = np.uint8(0)
        below_top = 0
        for s in range(column_start[c], column_start[c + 1]):
            walkable = area[s] != 0
            if not walkable and below_walkable and smax[s] - below_top <= walkable_climb:
                area[s] = below_area
            below_walkable = walkable
            below_area = area[s]
            below_top = smax[s]


@njit(cache=True, nogil=True)
def filter_ledges(column_start, smin, smax, area, width, height, walkable_height,
                  walkable_climb):
    """Marks not walkable a span from which a fall of more than
    ``walkable_climb`` opens next to it (a ledge; also a span at the
    grid's edge) or whose reachable neighbour floors differ by more than
    ``walkable_climb`` (a steep slope climbed in voxel steps)."""
    drop = -walkable_climb - 1
    for z in range(height):
        for x in range(width):
            c = x + z * width
            for s in range(column_start[c], column_start[c + 1]):
                if area[s] == 0:
                    continue
                floor = smax[s]
                ceiling = smin[s + 1] if s + 1 < column_start[c + 1] else _SKY
                lowest_step = _SKY
                lowest_floor = floor
                highest_floor = floor
                for d in range(4):
                    nx = x + (-1 if d == 0 else (1 if d == 2 else 0))
                    nz = z + (1 if d == 1 else (-1 if d == 3 else 0))
                    if nx < 0 or nz < 0 or nx >= width or nz >= height:
                        lowest_step = drop
                        break
                    nc = nx + nz * width
                    first, end = column_start[nc], column_start[nc + 1]
                    # the open space below the neighbour's lowest span: a fall
                    # to the grid's floor
                    n_ceiling = smin[first] if first < end else _SKY
                    if min(ceiling, n_ceiling) - floor >= walkable_height:
                        lowest_step = drop
                        break
                    for t in range(first, end):
                        n_floor = smax[t]
                        n_ceiling = smin[t + 1] if t + 1 < end else _SKY
                        if min(ceiling, n_ceiling) - max(floor, n_floor) < walkable_height:
                            continue
                        step = n_floor - floor
                        lowest_step = min(lowest_step, step)
                        if abs(step) <= walkable_climb:
                            lowest_floor = min(lowest_floor, n_floor)
                            highest_floor = max(highest_floor, n_floor)
                        elif step < -walkable_climb:
                            break
                if lowest_step < -walkable_climb or highest_floor - lowest_floor > walkable_climb:
                    area[s] = 0


@njit(cache=True, nogil=True)
def filter_low_height(column_start, smin, smax, area, walkable_height):
    """Marks not walkable a span with less than ``walkable_height`` of open
    space above it."""
    for c in range(column_start.shape[0] - 1):
        for s in range(column_start[c], column_start[c + 1]):
            ceiling = smin[s + 1] if s + 1 < column_start[c + 1] else _SKY
            if ceiling - smax[s] < walkable_height:
                area[s] = 0


@njit(cache=True, nogil=True)
def compact_spans(column_start, smin, smax, area, width, height, walkable_height,
                  walkable_climb):
    """The open space above every walkable span: ``cell_index``,
    ``cell_count``, floor ``y``, clearance ``h`` (``OPEN_TOP`` under the
    sky), ``area`` and ``neighbors`` (absolute span index per direction,
    -1 where no floor is within ``walkable_climb`` with ``walkable_height``
    of shared opening)."""
    cells = width * height
    total = 0
    for s in range(smin.shape[0]):
        if area[s] != 0:
            total += 1
    cell_index = np.empty(cells, np.int32)
    cell_count = np.zeros(cells, np.int32)
    y = np.empty(total, np.int32)
    h = np.empty(total, np.int32)
    out_area = np.empty(total, np.uint8)
    i = 0
    for c in range(cells):
        cell_index[c] = i
        end = column_start[c + 1]
        for s in range(column_start[c], end):
            if area[s] == 0:
                continue
            y[i] = smax[s]
            h[i] = smin[s + 1] - smax[s] if s + 1 < end else OPEN_TOP
            out_area[i] = area[s]
            i += 1
        cell_count[c] = i - cell_index[c]
    neighbors = np.full((total, 4), -1, np.int32)
    for z in range(height):
        for x in range(width):
            c = x + z * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                for d in range(4):
                    nx = x + (-1 if d == 0 else (1 if d == 2 else 0))
                    nz = z + (1 if d == 1 else (-1 if d == 3 else 0))
                    if nx < 0 or nz < 0 or nx >= width or nz >= height:
                        continue
                    nc = nx + nz * width
                    for t in range(cell_index[nc], cell_index[nc] + cell_count[nc]):
                        bottom = max(y[s], y[t])
                        top = min(y[s] + h[s], y[t] + h[t])
                        if top - bottom >= walkable_height and abs(y[t] - y[s]) <= walkable_climb:
                            neighbors[s, d] = t
                            break
    return cell_index, cell_count, y, h, out_area, neighbors


@njit(cache=True, nogil=True)
def boundary_distance(cell_index, cell_count, neighbors, area):
    """uint16 per span: its distance to the nearest span that is not
    walkable or lacks a walkable neighbour in one of the four directions,
    along connected spans, in Recast's chamfer units (2 per straight step,
    3 per diagonal one; 65535 at most), by the distance field's two raster
    passes."""
    n = area.shape[0]
    dist = np.full(n, 0xFFFF, np.uint16)
    for s in range(n):
        if area[s] == 0:
            dist[s] = 0
            continue
        for d in range(4):
            t = neighbors[s, d]
            if t < 0 or area[t] == 0:
                dist[s] = 0
                break
    cells = cell_index.shape[0]
    _chamfer_pass(cell_index, cell_count, neighbors, dist, 0, cells, 1, 0, 3, 3, 2)
    _chamfer_pass(cell_index, cell_count, neighbors, dist, cells - 1, -1, -1, 2, 1, 1, 0)
    return dist


@njit(cache=True, nogil=True)
def erode_area(cell_index, cell_count, neighbors, area, radius):
    """Sets to 0 the area of every span closer than ``radius`` cells
    (chamfer distance below ``2 * radius``) to the walkable area's edge
    (everything, past 32767 cells)."""
    dist = boundary_distance(cell_index, cell_count, neighbors, area)
    limit = 2 * radius
    for s in range(area.shape[0]):
        if dist[s] < limit:
            area[s] = 0


@njit(cache=True, nogil=True)
def _cell_range(lo, hi, origin, size, count):
    """Cells ``[first, last]`` covering world ``[lo, hi]`` along one axis
    (truncated as Recast does); ``first > last`` when none."""
    first = int((lo - origin) / size)
    last = int((hi - origin) / size)
    if last < 0 or first >= count:
        return 1, 0
    return max(first, 0), min(last, count - 1)


@njit(cache=True, nogil=True)
def mark_convex_polygon(cell_index, cell_count, y, area, width, height, bmin, cs, ch,
                        polygon, y_low, y_high, new_area):
    """Gives ``new_area`` to the walkable spans whose floor is within
    ``[y_low, y_high]`` (in whole cell heights, truncated) and whose cell
    centre lies inside the convex ``polygon`` (k, 2) of (x, z) points."""
    lo_x, hi_x = polygon[:, 0].min(), polygon[:, 0].max()
    lo_z, hi_z = polygon[:, 1].min(), polygon[:, 1].max()
    x0, x1 = _cell_range(lo_x, hi_x, bmin[0], cs, width)
    z0, z1 = _cell_range(lo_z, hi_z, bmin[2], cs, height)
    floor_lo = int((y_low - bmin[1]) / ch)
    floor_hi = int((y_high - bmin[1]) / ch)
    k = polygon.shape[0]
    for z in range(z0, z1 + 1):
        pz = bmin[2] + (z + 0.5) * cs
        for x in range(x0, x1 + 1):
            px = bmin[0] + (x + 0.5) * cs
            inside = False
            j = k - 1
            for i in range(k):
                xi, zi = polygon[i, 0], polygon[i, 1]
                xj, zj = polygon[j, 0], polygon[j, 1]
                if (zi > pz) != (zj > pz) and px < (xj - xi) * (pz - zi) / (zj - zi) + xi:
                    inside = not inside
                j = i
            if not inside:
                continue
            c = x + z * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                if area[s] != 0 and floor_lo <= y[s] <= floor_hi:
                    area[s] = new_area


@njit(cache=True, nogil=True)
def mark_box(cell_index, cell_count, y, area, width, height, bmin, cs, ch, lo, hi,
             new_area):
    """Gives ``new_area`` to the walkable spans whose floor lies in the box
    ``lo``..``hi`` (world (3,) corners)."""
    x0, x1 = _cell_range(lo[0], hi[0], bmin[0], cs, width)
    z0, z1 = _cell_range(lo[2], hi[2], bmin[2], cs, height)
    floor_lo = int((lo[1] - bmin[1]) / ch)
    floor_hi = int((hi[1] - bmin[1]) / ch)
    for z in range(z0, z1 + 1):
        for x in range(x0, x1 + 1):
            c = x + z * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                if area[s] != 0 and floor_lo <= y[s] <= floor_hi:
                    area[s] = new_area


@njit(cache=True, nogil=True)
def mark_cylinder(cell_index, cell_count, y, area, width, height, bmin, cs, ch, center,
                  radius, cylinder_height, new_area):
    """Gives ``new_area`` to the walkable spans whose cell centre is closer
    than ``radius`` to the upright axis through ``center`` and whose floor
    is between ``center.y`` and ``center.y + cylinder_height``."""
    x0, x1 = _cell_range(center[0] - radius, center[0] + radius, bmin[0], cs, width)
    z0, z1 = _cell_range(center[2] - radius, center[2] + radius, bmin[2], cs, height)
    floor_lo = int((center[1] - bmin[1]) / ch)
    floor_hi = int((center[1] + cylinder_height - bmin[1]) / ch)
    r2 = radius * radius
    for z in range(z0, z1 + 1):
        dz = bmin[2] + (z + 0.5) * cs - center[2]
        for x in range(x0, x1 + 1):
            dx = bmin[0] + (x + 0.5) * cs - center[0]
            if dx * dx + dz * dz >= r2:
                continue
            c = x + z * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                if area[s] != 0 and floor_lo <= y[s] <= floor_hi:
                    area[s] = new_area
