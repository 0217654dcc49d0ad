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
def _phantom(s, t, i, k, road, out):
    """Costs along the edge through segment ``s`` at fraction ``t``: the
    ``k``-th edge of point ``i``."""
    seg_edge, seg_where, chain_start, chain, seg_cost = road[0], road[1], road[2], road[3], \
        road[4]
    e = seg_edge[s]
    j = seg_where[s]
    b = t * seg_cost[s]
    for m in range(chain_start[e], j):
        b += seg_cost[chain[m]]
    a = (1.0 - t) * seg_cost[s]
    for m in range(j + 1, chain_start[e + 1]):
        a += seg_cost[chain[m]]
    out[1][i, k] = s
    out[2][i, k] = e
    out[3][i, k] = b
    out[4][i, k] = a


@njit(cache=True, nogil=True)
def _haversine(lon1, lat1, lon2, lat2, radius):
    p1 = np.radians(lat1)
    p2 = np.radians(lat2)
    a = np.sin((p2 - p1) * 0.5) ** 2 + np.cos(p1) * np.cos(p2) * \
        np.sin(np.radians(lon2 - lon1) * 0.5) ** 2
    return 2.0 * radius * np.arcsin(np.sqrt(min(a, 1.0)))


@njit(cache=True, nogil=True)
def _snap_one(i, queries, index, road, max_snap, radius, out):
    """Point ``i``: the snapped point, its edges and costs (``snap``)."""
    seg_src, seg_dst, lon, lat, lo, cell, dims, start, segs, usable, twin = index
    edge_src, heads, walkable = road[5], road[6], road[7]
    proj, seg, edge, before, after, metres, node, exits, exit_cost, entries, entry_cost = out
    for k in range(2):
        seg[i, k] = -1
        edge[i, k] = -1
        before[i, k] = np.inf
        after[i, k] = np.inf
        exits[i, k] = -1
        exit_cost[i, k] = np.inf
        entries[i, k] = -1
        entry_cost[i, k] = np.inf
    node[i] = -1
    s, t = nearest_segment(queries[i, 0], queries[i, 1], seg_src, seg_dst, lon, lat, lo,
                           cell, dims, start, segs, usable)
    if s < 0:
        proj[i, 0] = np.nan
        proj[i, 1] = np.nan
        metres[i] = np.inf
        return
    a = seg_src[s]
    b = seg_dst[s]
    proj[i, 0] = lon[a] + t * (lon[b] - lon[a])
    proj[i, 1] = lat[a] + t * (lat[b] - lat[a])
    metres[i] = _haversine(queries[i, 0], queries[i, 1], proj[i, 0], proj[i, 1], radius)
    _phantom(s, t, i, 0, road, out)
    w = twin[s]
    if w >= 0 and usable[w]:
        _phantom(w, 1.0 - t, i, 1, road, out)
    if not metres[i] <= max_snap:
        return
    # a point that snaps onto a junction is that junction: routes leave and
    # reach it by any of its roads, not only by the segment it snapped to
    e = edge[i, 0]
    j = road[1][s]
    at = -1
    if t == 0.0 and j == road[2][e]:
        at = edge_src[e]
    elif t == 1.0 and j == road[2][e + 1] - 1:
        at = heads[e]
    if at >= 0:
        node[i] = at
        exits[i, 0] = at
        entries[i, 0] = at
        if walkable[at]:
            exit_cost[i, 0] = 0.0
            entry_cost[i, 0] = 0.0
        return
    best = np.inf
    for k in range(2):
        e = edge[i, k]
        if e < 0:
            continue
        tail = edge_src[e]
        head = heads[e]
        exits[i, k] = head
        entries[i, k] = tail
        if walkable[head]:
            exit_cost[i, k] = after[i, k]
            if after[i, k] < best:
                best = after[i, k]
                node[i] = head
        if walkable[tail]:
            entry_cost[i, k] = before[i, k]
            if before[i, k] < best:
                best = before[i, k]
                node[i] = tail
    if node[i] < 0:          # a road closed beyond both ends: its nearer end
        node[i] = edge_src[edge[i, 0]] if before[i, 0] <= after[i, 0] else heads[edge[i, 0]]


@njit(cache=True, nogil=True, parallel=True)
def snap(queries, index, road, max_snap, radius, out):
    """For each (lon, lat) row of ``queries``: the nearest point on a
    usable road (``proj``), its great-circle ``metres``, the directed edges
    through it (``edge[i]``: the nearest segment's edge, then its reverse
    twin's, -1 for none; ``seg[i]`` those segments) with the cost from
    each edge's tail to the point (``before``) and from the point to its
    head (``after``), and within ``max_snap``: the junctions a route from
    it leaves by (``exits``, ``exit_cost``: heads) and arrives by
    (``entries``, ``entry_cost``: tails; inf where the junction is not
    walkable), ``node`` the walkable one nearest along the road (-1
    beyond ``max_snap``). ``index``, ``road``, ``out``: the tuples
    ``locate.SegmentIndex.snap`` makes. Over all cores."""
    for i in prange(queries.shape[0]):
        _snap_one(i, queries, index, road, max_snap, radius, out)


@njit(cache=True, nogil=True)
def snap_serial(queries, index, road, max_snap, radius, out):
    """``snap`` on the calling thread (a route's two ends; worker threads)."""
    for i in range(queries.shape[0]):
        _snap_one(i, queries, index, road, max_snap, radius, out)
