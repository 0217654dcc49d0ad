"""numba kernels of the road locator (private; see ``locate.py``): the
nearest point on a road segment, and the costs along its edge from there.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


# -- nearest road segment ---------------------------------------------------
# Segments are bucketed by their (lon, lat) bounding boxes in a grid of
# square cells of ``cell`` degrees (a segment in every cell its box
# touches). A query measures in the plane tangent at itself: x = (lon -
# lon_q) * cos(lat_q), y = lat - lat_q (degrees of latitude), a Euclidean
# metric, so a ring search stops once the best distance is at most
# ``r * cell * cos(lat_q)``: every cell not searched yet lies more than
# ``r`` cells away along some axis.

@njit(cache=True, nogil=True)
def _seg_cells(lon, lat, a, b, lo, cell, dims):
    x0 = int((min(lon[a], lon[b]) - lo[0]) / cell)
    x1 = int((max(lon[a], lon[b]) - lo[0]) / cell)
    y0 = int((min(lat[a], lat[b]) - lo[1]) / cell)
    y1 = int((max(lat[a], lat[b]) - lo[1]) / cell)
    return (min(max(x0, 0), dims[0] - 1), min(max(x1, 0), dims[0] - 1),
            min(max(y0, 0), dims[1] - 1), min(max(y1, 0), dims[1] - 1))


@njit(cache=True, nogil=True)
def segment_cells_count(seg_src, seg_dst, lon, lat, lo, cell, dims):
    """How many (cell, segment) entries the bucketing makes."""
    total = 0
    for s in range(seg_src.shape[0]):
        x0, x1, y0, y1 = _seg_cells(lon, lat, seg_src[s], seg_dst[s], lo, cell, dims)
        total += (x1 - x0 + 1) * (y1 - y0 + 1)
    return total


@njit(cache=True, nogil=True)
def segment_bucket(seg_src, seg_dst, lon, lat, lo, cell, dims, total):
    """``(start, segs)``: the segments whose boxes touch cell ``c`` are
    ``segs[start[c]:start[c + 1]]`` (cell ``c = x * dims[1] + y``)."""
    cells = dims[0] * dims[1]
    start = np.zeros(cells + 1, dtype=np.int64)
    for s in range(seg_src.shape[0]):
        x0, x1, y0, y1 = _seg_cells(lon, lat, seg_src[s], seg_dst[s], lo, cell, dims)
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                start[x * dims[1] + y + 1] += 1
    for c in range(cells):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    segs = np.empty(total, dtype=np.int64)
    for s in range(seg_src.shape[0]):
        x0, x1, y0, y1 = _seg_cells(lon, lat, seg_src[s], seg_dst[s], lo, cell, dims)
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                c = x * dims[1] + y
                segs[fill[c]] = s
                fill[c] += 1
    return start, segs


@njit(cache=True, nogil=True)
def nearest_segment(qlon, qlat, seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs,
                    usable):
    """``(segment, t)`` nearest to (qlon, qlat) among ``usable`` segments
    in the tangent plane, ``t`` the fraction along it (0 at its source) of
    the nearest point; (-1, 0) when none is usable."""
    kx = np.cos(np.radians(qlat))
    cx = min(max(int(np.floor((qlon - lo[0]) / cell)), 0), dims[0] - 1)
    cy = min(max(int(np.floor((qlat - lo[1]) / cell)), 0), dims[1] - 1)
    rmax = max(dims[0], dims[1])
    best = -1
    bt = 0.0
    bd2 = np.inf
    for r in range(rmax + 1):
        for ix in range(max(cx - r, 0), min(cx + r, dims[0] - 1) + 1):
            for iy in range(max(cy - r, 0), min(cy + r, dims[1] - 1) + 1):
                if abs(ix - cx) != r and abs(iy - cy) != r:
                    continue                          # inner cells: searched already
                c = ix * dims[1] + iy
                for k in range(start[c], start[c + 1]):
                    s = segs[k]
                    if not usable[s]:
                        continue
                    a = seg_src[s]
                    b = seg_dst[s]
                    ax = (lon[a] - qlon) * kx
                    ay = lat[a] - qlat
                    dx = (lon[b] - qlon) * kx - ax
                    dy = lat[b] - qlat - ay
                    dd = dx * dx + dy * dy
                    t = 0.0
                    if dd > 0.0:
                        t = -(ax * dx + ay * dy) / dd
                        t = 0.0 if t <= 0.0 else min(t, 1.0)      # never -0.0
                    px = ax + t * dx
                    py = ay + t * dy
                    d2 = px * px + py * py
                    if d2 < bd2 or (d2 == bd2 and s < best):
                        bd2 = d2
                        best = s
                        bt = t
        bound = r * cell * kx
        if best >= 0 and bd2 <= bound * bound:
            break
    return best, bt


@njit(cache=True, nogil=True)
def _phantom(s, t, k, seg_edge, seg_where, chain_start, chain, seg_cost, seg, edge, before,
             after):
    """Costs along the edge through segment ``s`` at fraction ``t``."""
    e = seg_edge[s]
    j = seg_where[s]
    b = t * seg_cost[s]
    for i in range(chain_start[e], j):
        b += seg_cost[chain[i]]
    a = (1.0 - t) * seg_cost[s]
    for i in range(j + 1, chain_start[e + 1]):
        a += seg_cost[chain[i]]
    seg[k] = s
    edge[k] = e
    before[k] = b
    after[k] = a


@njit(cache=True, nogil=True)
def _snap_one(i, queries, seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs, usable,
              twin, seg_edge, seg_where, chain_start, chain, seg_cost, proj, seg, edge,
              before, after):
    s, t = nearest_segment(queries[i, 0], queries[i, 1], seg_src, seg_dst, lon, lat, lo,
                           cell, dims, start, segs, usable)
    for k in range(2):
        seg[i, k] = -1
        edge[i, k] = -1
    for k in range(2):
        before[i, k] = np.inf
        after[i, k] = np.inf
    if s < 0:
        proj[i, 0] = np.nan
        proj[i, 1] = np.nan
        return
    a = seg_src[s]
    b = seg_dst[s]
    proj[i, 0] = lon[a] + t * (lon[b] - lon[a])
    proj[i, 1] = lat[a] + t * (lat[b] - lat[a])
    _phantom(s, t, 0, seg_edge, seg_where, chain_start, chain, seg_cost, seg[i],
             edge[i], before[i], after[i])
    w = twin[s]
    if w >= 0 and usable[w]:
        _phantom(w, 1.0 - t, 1, seg_edge, seg_where, chain_start, chain, seg_cost, seg[i],
                 edge[i], before[i], after[i])


@njit(cache=True, nogil=True, parallel=True)
def snap(queries, seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs, usable, twin,
         seg_edge, seg_where, chain_start, chain, seg_cost, proj, seg, edge, before, after):
    """For each (lon, lat) row of ``queries``: the nearest point on a
    usable road (``proj``) and the directed edges through it (``edge[i]``:
    the nearest segment's edge, then its reverse twin's, -1 for none;
    ``seg[i]`` those segments) with
    the cost from each edge's tail to the point (``before``) and from the
    point to its head (``after``); over all cores."""
    for i in prange(queries.shape[0]):
        _snap_one(i, queries, seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs,
                  usable, twin, seg_edge, seg_where, chain_start, chain, seg_cost, proj,
                  seg, edge, before, after)


@njit(cache=True, nogil=True)
def snap_serial(queries, seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs, usable,
                twin, seg_edge, seg_where, chain_start, chain, seg_cost, proj, seg, edge,
                before, after):
    """``snap`` on the calling thread (a route's two ends; worker threads)."""
    for i in range(queries.shape[0]):
        _snap_one(i, queries, seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs,
                  usable, twin, seg_edge, seg_where, chain_start, chain, seg_cost, proj,
                  seg, edge, before, after)
