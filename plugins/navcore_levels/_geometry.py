"""numba kernels over a level's triangles, run once per build before any
tile: the input checks (one pass instead of numpy's temporaries per
test) and the triangles each tile reads.

Private: ``levelfile.checked_arrays`` and ``tiles`` format and use them."""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, inline="always")
def from_to(points, a, b):
    """The vector from ``points[a]`` to ``points[b]`` (rows of x, y, z), in
    the points' precision: ``(dx, dy, dz)``."""
    return (points[b, 0] - points[a, 0], points[b, 1] - points[a, 1],
            points[b, 2] - points[a, 2])


@njit(cache=True, nogil=True)
def first_bad_vertex(verts, max_coordinate):
    """The first row of ``verts`` (N, 3) with a coordinate that is not
    finite or is beyond ``max_coordinate`` in size; -1 when none is."""
    for i in range(verts.shape[0]):
        for k in range(3):
            v = verts[i, k]
            if not math.isfinite(v) or abs(v) > max_coordinate:
                return i
    return -1


@njit(cache=True, nogil=True)
def first_bad_index(tris, count):
    """``(row, column)`` of the first entry of ``tris`` outside
    ``0..count-1``; ``(-1, -1)`` when none is."""
    for i in range(tris.shape[0]):
        for k in range(tris.shape[1]):
            if tris[i, k] < 0 or tris[i, k] >= count:
                return i, k
    return -1, -1


@njit(cache=True, nogil=True)
def triangle_boxes(verts, tris):
    """Each triangle's box: ``lo`` and ``hi`` (M, 3), as ``verts``' dtype."""
    m = tris.shape[0]
    lo = np.empty((m, 3), verts.dtype)
    hi = np.empty((m, 3), verts.dtype)
    for t in range(m):
        for k in range(3):
            a, b, c = verts[tris[t, 0], k], verts[tris[t, 1], k], verts[tris[t, 2], k]
            lo[t, k] = min(min(a, b), c)
            hi[t, k] = max(max(a, b), c)
    return lo, hi


@njit(cache=True, nogil=True)
def bucket_by_tile(lo, hi, origin_x, origin_z, tiles_x, tiles_z, tile_width, slack):
    """Per tile, the triangles whose x-z box (``lo``/``hi``) grown by
    ``slack`` reaches it: ``(tris, start)``, tile ``i``'s in ascending
    order at ``tris[start[i]:start[i + 1]]``."""
    m = lo.shape[0]
    first = np.empty((m, 2), np.int64)
    last = np.empty((m, 2), np.int64)
    count = np.zeros(tiles_x * tiles_z + 1, np.int64)
    for t in range(m):
        first[t, 0] = max(int(math.floor((lo[t, 0] - origin_x - slack) / tile_width)), 0)
        first[t, 1] = max(int(math.floor((lo[t, 2] - origin_z - slack) / tile_width)), 0)
        last[t, 0] = min(int(math.floor((hi[t, 0] - origin_x + slack) / tile_width)),
                         tiles_x - 1)
        last[t, 1] = min(int(math.floor((hi[t, 2] - origin_z + slack) / tile_width)),
                         tiles_z - 1)
        for tz in range(first[t, 1], last[t, 1] + 1):
            for tx in range(first[t, 0], last[t, 0] + 1):
                count[tz * tiles_x + tx + 1] += 1
    for i in range(tiles_x * tiles_z):
        count[i + 1] += count[i]
    fill = count[:-1].copy()
    out = np.empty(count[-1], np.int64)
    for t in range(m):
        for tz in range(first[t, 1], last[t, 1] + 1):
            for tx in range(first[t, 0], last[t, 0] + 1):
                tile = tz * tiles_x + tx
                out[fill[tile]] = t
                fill[tile] += 1
    return out, count
