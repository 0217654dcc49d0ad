"""Kernels: triangle slopes and the rasterization of triangles into solid
spans (Recast's ``rcMarkWalkableTriangles`` and ``rcRasterizeTriangles``).

Both compute in float32, as Recast does, so a level voxelizes into the same
spans as Recast's build of it: a vertex that lies a rounding error away
from a cell's edge or a cell height's boundary falls on the same side.

Rasterization cuts each triangle into the strip of every grid row it
crosses, then each strip into the cells of that row (a convex polygon cut
by a line stays convex, so a cut is one pass over its vertices); a cell
whose piece keeps three or more vertices gets a span from the piece's
lowest to its highest point, floor and ceiling to whole cell heights.
While rasterizing, a column's spans are a linked list in a growing pool
(a new span is merged with every span it touches, as Recast merges
them); ``pack_columns`` then stores each column's spans contiguously,
bottom-up, for the stages that follow.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._geometry import from_to

#: Recast keeps span heights in 13 bits: a span ends at most this many cell
#: heights above the grid's floor
SPAN_MAX_HEIGHT = (1 << 13) - 1
#: the most vertices a piece of a triangle can have after two pairs of
#: parallel cuts is 7; the buffers leave room
_MAX_PIECE = 12

F32 = np.float32


@njit(cache=True, nogil=True)
def mark_walkable_triangles(verts, tris, walkable_cos, walk_area, out_area):
    """``out_area[i] = walk_area[i]`` where triangle ``i``'s unit normal
    points up by more than ``walkable_cos`` (its slope is below the
    limit), else 0. ``verts`` float32; the normal is ``(v1-v0) x (v2-v0)``,
    so a walkable floor is wound counter-clockwise seen from above
    (y up, x right, z toward the viewer)."""
    one = F32(1.0)
    for i in range(tris.shape[0]):
        a, b, c = tris[i, 0], tris[i, 1], tris[i, 2]
        e0x, e0y, e0z = from_to(verts, a, b)
        e1x, e1y, e1z = from_to(verts, a, c)
        nx = e0y * e1z - e0z * e1y
        ny = e0z * e1x - e0x * e1z
        nz = e0x * e1y - e0y * e1x
        length = np.sqrt(nx * nx + ny * ny + nz * nz)
        if length > 0 and ny * (one / length) > walkable_cos:
            out_area[i] = walk_area[i]
        else:
            out_area[i] = 0


@njit(cache=True, nogil=True, inline="always")
def _move(pieces, src, i, dst, j):
    pieces[dst, j, 0] = pieces[src, i, 0]
    pieces[dst, j, 1] = pieces[src, i, 1]
    pieces[dst, j, 2] = pieces[src, i, 2]


@njit(cache=True, nogil=True, inline="always")
def _cut(pieces, poly, count, below, above, offset, axis):
    """Cuts the convex polygon ``pieces[poly, :count]`` by the plane
    ``coordinate[axis] = offset``: the part on the low side goes to
    ``pieces[below]``, the rest to ``pieces[above]``; a vertex on the
    plane goes to both. Returns the two vertex counts. (The pieces are
    slots of one buffer, picked by index: array views or swapped array
    variables in the hot loop would cost reference counting.)"""
    n_below = 0
    n_above = 0
    prev = count - 1
    for cur in range(count):
        d_cur = offset - pieces[poly, cur, axis]
        d_prev = offset - pieces[poly, prev, axis]
        if (d_cur >= 0) != (d_prev >= 0):
            s = d_prev / (d_prev - d_cur)
            for k in range(3):
                v = pieces[poly, prev, k] + (pieces[poly, cur, k] - pieces[poly, prev, k]) * s
                pieces[below, n_below, k] = v
                pieces[above, n_above, k] = v
            n_below += 1
            n_above += 1
            # the crossing point was added to both; the vertex goes to its side
            # unless it lies on the plane (then it is that crossing point)
            if d_cur > 0:
                _move(pieces, poly, cur, below, n_below)
                n_below += 1
            elif d_cur < 0:
                _move(pieces, poly, cur, above, n_above)
                n_above += 1
        else:
            if d_cur >= 0:
                _move(pieces, poly, cur, below, n_below)
                n_below += 1
                if d_cur != 0:
                    prev = cur
                    continue
            _move(pieces, poly, cur, above, n_above)
            n_above += 1
        prev = cur
    return n_below, n_above


@njit(cache=True, nogil=True, inline="always")
def _extent(pieces, slot, count, axis):
    """Smallest and largest ``axis`` coordinate of piece ``slot``."""
    lo = hi = pieces[slot, 0, axis]
    for k in range(1, count):
        lo = min(lo, pieces[slot, k, axis])
        hi = max(hi, pieces[slot, k, axis])
    return lo, hi


# the fields of a span in the rasterizer's pool (one row of an int32 array,
# so a span is one cache line away, not four)
_MIN, _MAX, _AREA, _NEXT = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _rasterize_from(first, heads, spans, pool, verts, tris, tri_areas, bmin, bmax, cs, ch,
                    width, height, merge_threshold):
    """Rasterizes triangles ``first, first+1, ...`` until done (returns the
    triangle count) or until the next triangle might not find room in
    ``spans`` (returns its index; the caller grows the pool and calls
    again)."""
    room = spans.shape[0]
    free, used = pool[0], pool[1]
    inv_cs = F32(1.0) / cs
    inv_ch = F32(1.0) / ch
    y_range = bmax[1] - bmin[1]
    zero = F32(0.0)
    # slots of the pieces: the triangle beyond the rows done (rest), the
    # row's strip beyond the cells done (row), the cell's piece, two spares
    pieces = np.empty((5, _MAX_PIECE, 3), np.float32)
    cell = 4
    for t in range(first, tris.shape[0]):
        lo_x = hi_x = verts[tris[t, 0], 0]
        lo_y = hi_y = verts[tris[t, 0], 1]
        lo_z = hi_z = verts[tris[t, 0], 2]
        for k in range(1, 3):
            v = tris[t, k]
            lo_x = min(lo_x, verts[v, 0])
            hi_x = max(hi_x, verts[v, 0])
            lo_y = min(lo_y, verts[v, 1])
            hi_y = max(hi_y, verts[v, 1])
            lo_z = min(lo_z, verts[v, 2])
            hi_z = max(hi_z, verts[v, 2])
        if lo_x > bmax[0] or hi_x < bmin[0] or lo_y > bmax[1] or hi_y < bmin[1] \
                or lo_z > bmax[2] or hi_z < bmin[2]:
            continue
        # rows are found by truncation (toward zero), as Recast finds them; the
        # row before the first (-1) is cut too, so a triangle that starts
        # outside the grid is trimmed at its edge
        z0 = min(max(int((lo_z - bmin[2]) * inv_cs), -1), height - 1)
        z1 = min(max(int((hi_z - bmin[2]) * inv_cs), 0), height - 1)
        # each cell of the footprint's box adds at most one span
        cells = (z1 - z0 + 1) * (int((hi_x - lo_x) * inv_cs) + 3)
        if used + cells > room:
            pool[0], pool[1] = free, used
            return t
        rest, spare, row, row_spare = 0, 1, 2, 3
        for k in range(3):
            for axis in range(3):
                pieces[rest, k, axis] = verts[tris[t, k], axis]
        n_rest = 3
        for z in range(z0, z1 + 1):
            # the row's far edge, computed as Recast computes it (same rounding)
            n_row, n_rest = _cut(pieces, rest, n_rest, row, spare, bmin[2] + F32(z) * cs + cs, 2)
            rest, spare = spare, rest
            if n_row < 3 or z < 0:
                continue
            min_x, max_x = _extent(pieces, row, n_row, 0)
            x0 = int((min_x - bmin[0]) * inv_cs)
            x1 = int((max_x - bmin[0]) * inv_cs)
            if x1 < 0 or x0 >= width:
                continue
            x0 = min(max(x0, -1), width - 1)
            x1 = min(max(x1, 0), width - 1)
            for x in range(x0, x1 + 1):
                n_cell, n_row = _cut(pieces, row, n_row, cell, row_spare,
                                     bmin[0] + F32(x) * cs + cs, 0)
                row, row_spare = row_spare, row
                if n_cell < 3 or x < 0:
                    continue
                y_lo, y_hi = _extent(pieces, cell, n_cell, 1)
                y_lo -= bmin[1]
                y_hi -= bmin[1]
                if y_hi < zero or y_lo > y_range:
                    continue
                if y_lo < zero:
                    y_lo = zero
                if y_hi > y_range:
                    y_hi = y_range
                lo = min(max(int(np.floor(y_lo * inv_ch)), 0), SPAN_MAX_HEIGHT)
                hi = min(max(int(np.ceil(y_hi * inv_ch)), lo + 1), SPAN_MAX_HEIGHT)
                # put [lo, hi) into the column's bottom-up list, merged with
                # every span it overlaps or touches; where the merged top is
                # within merge_threshold of a merged span's top, the larger
                # area id wins (a walkable floor is not lost under a steep
                # triangle ending at about its height). Written here, not
                # as an inlined helper: numba's inlining made it 2x slower.
                column = x + z * width
                span_area = np.int32(tri_areas[t])
                new = free                  # a span from the free list, else a new row
                if new >= 0:
                    free = spans[new, _NEXT]
                else:
                    new = used
                    used += 1
                prev = -1
                cur = heads[column]
                while cur >= 0:
                    if spans[cur, _MIN] > hi:
                        break
                    if spans[cur, _MAX] < lo:
                        prev = cur
                        cur = spans[cur, _NEXT]
                        continue
                    lo = min(lo, spans[cur, _MIN])
                    hi = max(hi, spans[cur, _MAX])
                    if abs(hi - spans[cur, _MAX]) <= merge_threshold:
                        span_area = max(span_area, spans[cur, _AREA])
                    following = spans[cur, _NEXT]
                    spans[cur, _NEXT] = free        # merged: back to the free list
                    free = cur
                    if prev >= 0:
                        spans[prev, _NEXT] = following
                    else:
                        heads[column] = following
                    cur = following
                spans[new, _MIN] = lo
                spans[new, _MAX] = hi
                spans[new, _AREA] = span_area
                if prev >= 0:
                    spans[new, _NEXT] = spans[prev, _NEXT]
                    spans[prev, _NEXT] = new
                else:
                    spans[new, _NEXT] = heads[column]
                    heads[column] = new
    pool[0], pool[1] = free, used
    return tris.shape[0]


@njit(cache=True, nogil=True)
def rasterize_triangles(verts, tris, tri_areas, bmin, bmax, cs, ch, width, height,
                        merge_threshold, capacity):
    """Rasterizes triangles (``verts`` float32 (N, 3), ``tris`` (M, 3),
    ``tri_areas`` uint8 (M,)) into a ``width`` x ``height`` grid from
    ``bmin`` to ``bmax`` (float32 (3,)); cell size ``cs``, height ``ch``
    (float32). Returns the column lists: ``heads`` (first span per cell or
    -1), ``spans`` (rows ``smin, smax, area, next``; next -1 at a
    column's top) and how many rows were handed out."""
    heads = np.full(width * height, -1, np.int32)
    spans = np.empty((max(capacity, 64), 4), np.int32)
    pool = np.array([-1, 0], np.int64)
    t = 0
    while t < tris.shape[0]:
        t = _rasterize_from(t, heads, spans, pool, verts, tris, tri_areas, bmin, bmax, cs,
                            ch, width, height, merge_threshold)
        if t < tris.shape[0]:
            bigger = np.empty((2 * spans.shape[0] + _footprint(verts, tris, t, cs), 4), np.int32)
            bigger[:spans.shape[0]] = spans
            spans = bigger
    return heads, spans, pool[1]


@njit(cache=True, nogil=True)
def _footprint(verts, tris, t, cs):
    """Cells in the box of triangle ``t``'s footprint, with a margin."""
    lo_x = min(verts[tris[t, 0], 0], verts[tris[t, 1], 0], verts[tris[t, 2], 0])
    hi_x = max(verts[tris[t, 0], 0], verts[tris[t, 1], 0], verts[tris[t, 2], 0])
    lo_z = min(verts[tris[t, 0], 2], verts[tris[t, 1], 2], verts[tris[t, 2], 2])
    hi_z = max(verts[tris[t, 0], 2], verts[tris[t, 1], 2], verts[tris[t, 2], 2])
    return (int((hi_x - lo_x) / cs) + 3) * (int((hi_z - lo_z) / cs) + 3)


@njit(cache=True, nogil=True)
def spans_upper_bound(verts, tris, cs, width, height):
    """No more spans than this can be added: each triangle adds at most one
    per cell of its footprint's box (with a margin), and no more than the
    grid's cells."""
    total = 0
    cells = width * height
    for t in range(tris.shape[0]):
        total += min(_footprint(verts, tris, t, cs), cells)
    return total


@njit(cache=True, nogil=True)
def pack_columns(heads, spans, used):
    """The column lists as contiguous bottom-up runs: ``column_start``
    (cells + 1,) and the spans' ``smin``, ``smax``, ``area``. One walk
    over the lists, appending (``used`` rows bound the live spans)."""
    cells = heads.shape[0]
    column_start = np.empty(cells + 1, np.int32)
    out_min = np.empty(used, np.int32)
    out_max = np.empty(used, np.int32)
    out_area = np.empty(used, np.uint8)
    i = 0
    for c in range(cells):
        column_start[c] = i
        s = heads[c]
        while s >= 0:
            out_min[i] = spans[s, _MIN]
            out_max[i] = spans[s, _MAX]
            out_area[i] = spans[s, _AREA]
            i += 1
            s = spans[s, _NEXT]
    column_start[cells] = i
    # views of the first i rows: merged spans left fewer than were handed out
    return column_start, out_min[:i], out_max[:i], out_area[:i]
