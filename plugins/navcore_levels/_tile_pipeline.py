"""One tile of a tiled level build as two kernels: ``voxelize_tile``
(triangles to the compact heightfield, which the tile keeps for run-time
obstacles) and ``mesh_tile`` (that heightfield to polygons and the detail
mesh). They call the same stage kernels the public stage functions call,
in the same order with the same arguments, so a tile equals the stages
run one by one; but a tile's work runs without the GIL from start to end.
Stage by stage, every stage came back to Python between kernels, and
tiles built on several threads waited on each other for the GIL.

Limits a stage would check before allocating come back as a status and
a value (``STATUS``), so the caller raises the error the stage raises.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._contours import build_contours_kernel
from ._detail_kernels import build_detail
from ._distance import box_blur, chamfer_distance
from ._monotone import monotone
from ._polymesh import build_polymesh_kernel
from ._rasterize import SPAN_MAX_HEIGHT, pack_columns, rasterize_triangles, spans_upper_bound
from ._region_filter import merge_and_filter, split_self_overlaps
from ._spans import (compact_spans, erode_area, filter_ledges, filter_low_hanging_obstacles,
                     filter_low_height, mark_box, mark_convex_polygon, mark_cylinder)
from ._watershed import watershed

OK = 0
#: the tile's box holds none of the triangles
EMPTY = 1
#: the span bound (value) passes the int32 limit
TOO_MANY_SPANS = 2
#: a stage's first buffers (value: bytes) would pass the memory limit
HEIGHTFIELD_MEMORY = 3
COMPACT_MEMORY = 4
REGIONS_MEMORY = 5
DETAIL_MEMORY = 6
#: more regions (value) than region ids hold
TOO_MANY_REGIONS = 7

#: volume kinds in packed volumes (``pack_volumes``)
CONVEX, BOX, CYLINDER = 0, 1, 2


@njit(cache=True, nogil=True)
def _pick(near, tri_lo, tri_hi, lo, hi):
    """The triangles of ``near`` whose x-z box reaches ``lo``..``hi``, in order."""
    out = np.empty(near.shape[0], np.int64)
    n = 0
    for t in near:
        if tri_hi[t, 0] >= lo[0] and tri_lo[t, 0] <= hi[0] \
                and tri_hi[t, 2] >= lo[2] and tri_lo[t, 2] <= hi[2]:
            out[n] = t
            n += 1
    return out[:n]


@njit(cache=True, nogil=True)
def voxelize_tile(verts, tris, tri_areas, near, tri_lo, tri_hi, lo, hi, cs, ch, width, height,
                  walkable_climb, walkable_height, bytes_per_column, bytes_per_span,
                  bytes_per_open_span, max_spans, memory_limit):
    """Rasterize the triangles of ``near`` whose box reaches the tile's
    grid (``lo``..``hi``, ``width`` x ``height`` cells), filter what an
    agent stands on and compact. Returns ``(status, value, cell_index,
    cell_count, y, h, area, neighbors)``; the arrays are empty unless
    ``status`` is ``OK``."""
    i32 = np.empty(0, np.int32)
    nothing = (i32, i32, i32, i32, np.empty(0, np.uint8), np.empty((0, 4), np.int32))
    pick = _pick(near, tri_lo, tri_hi, lo, hi)
    if pick.shape[0] == 0:
        return (EMPTY, 0) + nothing
    picked = np.empty((pick.shape[0], 3), tris.dtype)
    areas = np.empty(pick.shape[0], np.uint8)
    for k in range(pick.shape[0]):
        picked[k] = tris[pick[k]]
        areas[k] = tri_areas[pick[k]]
    cells = width * height
    # each triangle adds at most one span per cell of its footprint's box,
    # and a column holds at most one span per two cell heights
    bound = min(spans_upper_bound(verts, picked, cs, width, height),
                cells * (SPAN_MAX_HEIGHT + 1) // 2)
    if bound > max_spans:
        return (TOO_MANY_SPANS, bound) + nothing
    need = cells * bytes_per_column + min(bound, 4 * cells) * bytes_per_span
    if need > memory_limit:
        return (HEIGHTFIELD_MEMORY, need) + nothing
    heads, spans, used = rasterize_triangles(verts, picked, areas, lo, hi, cs, ch, width,
                                             height, walkable_climb, min(bound, 2 * cells) + 64)
    column_start, smin, smax, area = pack_columns(heads, spans, used)
    filter_low_hanging_obstacles(column_start, smax, area, walkable_climb)
    filter_ledges(column_start, smin, smax, area, width, height, walkable_height,
                  walkable_climb)
    filter_low_height(column_start, smin, smax, area, walkable_height)
    walkable = 0
    for a in area:
        if a != 0:
            walkable += 1
    need = walkable * bytes_per_open_span + cells * 8
    if need > memory_limit:
        return (COMPACT_MEMORY, need) + nothing
    return (OK, 0) + compact_spans(column_start, smin, smax, area, width, height,
                                   walkable_height, walkable_climb)


@njit(cache=True, nogil=True)
def _mark(kind, floats, points, first, last, cell_index, cell_count, y, span_area,
          width, height, bmin, cs, ch, new_area):
    """One packed volume marked on ``span_area``."""
    if kind == BOX:
        mark_box(cell_index, cell_count, y, span_area, width, height, bmin, cs, ch,
                 floats[0:3], floats[3:6], new_area)
    elif kind == CYLINDER:
        mark_cylinder(cell_index, cell_count, y, span_area, width, height, bmin, cs, ch,
                      floats[0:3], floats[3], floats[4], new_area)
    else:
        mark_convex_polygon(cell_index, cell_count, y, span_area, width, height, bmin, cs, ch,
                            points[first:last], floats[0], floats[1], new_area)


@njit(cache=True, nogil=True)
def _mark_all(kinds, areas, floats, points, starts, boxes, which, cell_index, cell_count, y,
              span_area, width, height, bmin, cs, ch):
    """The packed volumes ``which`` selects (0: all, 1: area 0 only, 2:
    the others) whose x-z box (``boxes``: lo x, lo z, hi x, hi z) reaches
    the grid, in order."""
    lo_x, lo_z = bmin[0] - cs, bmin[2] - cs
    hi_x, hi_z = bmin[0] + (width + 1) * cs, bmin[2] + (height + 1) * cs
    for v in range(kinds.shape[0]):
        if which == 1 and areas[v] != 0 or which == 2 and areas[v] == 0:
            continue
        if boxes[v, 2] < lo_x or boxes[v, 0] > hi_x or boxes[v, 3] < lo_z or boxes[v, 1] > hi_z:
            continue
        _mark(kinds[v], floats[v], points, starts[v], starts[v + 1], cell_index,
              cell_count, y, span_area, width, height, bmin, cs, ch, areas[v])


@njit(cache=True, nogil=True)
def mesh_tile(cell_index, cell_count, y, neighbors, compact_area, width, height, bmin, cs, ch,
              border, walkable_radius, volumes, obstacles, monotone_partition, min_region_area,
              merge_region_area, max_regions, region_mask, region_bytes, max_error,
              max_edge_len, tess_flags, nvp, sample_distance, sample_max_error, memory_limit):
    """A tile's compact heightfield to polygons: blocking ``obstacles``
    marked, erosion by ``walkable_radius`` cells, ``volumes`` then the
    obstacles that give an area marked, regions, contours, polygons and the
    detail mesh. ``volumes`` and ``obstacles`` are ``pack_volumes``'s.
    Returns ``(status, value, area, dist, region, region_count,
    contour_loose, polymesh (verts, polys, neighbors, regions, areas),
    polymesh_bad, detail (verts, tris, tri_flags, vert_offsets,
    tri_offsets))``."""
    area = compact_area.copy()
    spans = y.shape[0]
    _mark_all(*obstacles, 1, cell_index, cell_count, y, area, width, height, bmin, cs, ch)
    if walkable_radius > 0:
        erode_area(cell_index, cell_count, neighbors, area, walkable_radius)
    _mark_all(*volumes, 0, cell_index, cell_count, y, area, width, height, bmin, cs, ch)
    # run-time area types over the build's: marking skips unwalkable spans,
    # so after the erosion they mark what they would have before it
    _mark_all(*obstacles, 2, cell_index, cell_count, y, area, width, height, bmin, cs, ch)
    dist = np.zeros(spans, np.uint16)
    region = np.empty(spans, np.int32)
    min_area = min(min_region_area, spans + 1)
    merge_area = min(merge_region_area, spans + 1)
    i32 = np.empty(0, np.int32)
    no_mesh = (np.empty((0, 3), np.int32), np.empty((0, nvp), np.int32),
               np.empty((0, nvp), np.int32), i32, np.empty(0, np.uint8))
    no_detail = (np.empty((0, 3), np.float64), np.empty((0, 3), np.int32),
                 np.empty(0, np.uint8), np.zeros(1, np.int64), np.zeros(1, np.int64))
    if spans * region_bytes > memory_limit:
        return (REGIONS_MEMORY, spans * region_bytes, area, dist, region, 0, 0, no_mesh, 0,
                no_detail)
    if monotone_partition:
        next_id = monotone(cell_index, cell_count, width, height, border, neighbors, area,
                           region)
    else:
        raw = np.empty(spans, np.uint16)
        largest = chamfer_distance(cell_index, cell_count, neighbors, area, raw)
        box_blur(neighbors, raw, dist, 1)
        next_id = watershed(cell_index, cell_count, width, height, border, neighbors, area,
                            dist, int(largest), region)
    count = merge_and_filter(cell_index, cell_count, neighbors, area, region, next_id,
                             min_area, merge_area)
    if count < 0:       # a region covers a cell twice: split it, then clean up
        next_id = split_self_overlaps(cell_index, cell_count, neighbors, region, next_id)
        count = merge_and_filter(cell_index, cell_count, neighbors, area, region, next_id,
                                 min_area, merge_area)
    if count > max_regions:
        return (TOO_MANY_REGIONS, count, area, dist, region, count, 0, no_mesh, 0, no_detail)
    top = 0
    for r in region:
        top = max(top, r & region_mask)
    (cverts, vstart, vcount, _, _, _, cregions, careas, loose) = build_contours_kernel(
        width, height, border, cell_index, cell_count, y, neighbors, area, region, top,
        max_error, max_edge_len, tess_flags)
    mesh = build_polymesh_kernel(cverts, vstart, vcount, cregions, careas, nvp, border,
                                 width - 2 * border, height - 2 * border)
    pverts, polys, pregions, bad = mesh[0], mesh[1], mesh[3], mesh[5]
    pmesh = (pverts, polys, mesh[2], pregions, mesh[4])
    if polys.shape[0] == 0:
        return (OK, 0, area, dist, region, count, loose, pmesh, bad, no_detail)
    need = 48 * pverts.shape[0] + 32 * polys.size + 16 * width * height
    if need > memory_limit:
        return (DETAIL_MEMORY, need, area, dist, region, count, loose, pmesh, bad, no_detail)
    origin = bmin.copy()
    origin[0] += border * cs
    origin[2] += border * cs
    # cells searched round an edge: more than the grid's size finds nothing more
    radius = max(1, int(math.ceil(min(max_error, width + height))))
    detail = build_detail(pverts, polys, pregions, origin, cs, ch, border, width, height,
                          cell_index, cell_count, y, neighbors, region, sample_distance,
                          sample_max_error, radius)
    return (OK, 0, area, dist, region, count, loose, pmesh, bad, detail)


def pack_volumes(volumes) -> tuple:
    """Volumes (``voxels.checked_volumes``'s: convex ``(polygon_xz, ymin,
    ymax, area)``, ``AreaBox``, ``AreaCylinder``) as the arrays
    ``mesh_tile`` reads: kinds, areas, floats (box: lo, hi; cylinder:
    centre, radius, height; convex: ymin, ymax), the convex polygons'
    points and where each starts, and x-z boxes."""
    n = len(volumes)
    kinds = np.zeros(n, np.int64)
    areas = np.zeros(n, np.uint8)
    floats = np.zeros((n, 6), np.float64)
    boxes = np.zeros((n, 4), np.float64)
    points, starts = [np.zeros((0, 2))], [0]
    for i, vol in enumerate(volumes):
        if hasattr(vol, "bmin"):
            kinds[i], areas[i] = BOX, vol.area
            floats[i] = np.concatenate([vol.bmin, vol.bmax])
            boxes[i] = vol.bmin[0], vol.bmin[2], vol.bmax[0], vol.bmax[2]
        elif hasattr(vol, "radius"):
            kinds[i], areas[i] = CYLINDER, vol.area
            c, r = np.asarray(vol.center, np.float64), float(vol.radius)
            floats[i, :5] = c[0], c[1], c[2], r, float(vol.height)
            boxes[i] = c[0] - r, c[2] - r, c[0] + r, c[2] + r
        else:
            poly, ymin, ymax, area = vol
            kinds[i], areas[i] = CONVEX, area
            floats[i, :2] = ymin, ymax
            points.append(np.asarray(poly, np.float64))
            boxes[i, :2], boxes[i, 2:] = points[-1].min(axis=0), points[-1].max(axis=0)
        starts.append(starts[-1] + (len(points[-1]) if kinds[i] == CONVEX else 0))
    return (kinds, areas, floats, np.ascontiguousarray(np.concatenate(points)),
            np.array(starts, np.int64), boxes)
